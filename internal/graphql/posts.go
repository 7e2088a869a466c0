package graphql

import (
	"context"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// ListPosts lists the posts the query and filters find in the search index
// (resourceUrn: those whose target is that entity), last modified first.
func (r *queryResolver) ListPosts(ctx context.Context, in model.ListPostsInput) (*model.ListPostsResult, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	filter := filterOf(nil, in.OrFilters)
	if u := deref(in.ResourceUrn); u != "" {
		// DataHub adds the target as one more alternative.
		if filter == nil {
			filter = &search.FilterInput{}
		}
		filter.Or = append(filter.Or, search.ConjunctionInput{And: []search.CriterionInput{{Field: "target", Values: []string{u}, Condition: "EQUAL"}}})
	}
	q := strings.TrimSpace(deref(in.Query))
	if q == "" {
		q = "*"
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{"post"}, Input: q, Filter: filter, Count: search.MaxPageSize})
	if err != nil {
		return nil, err
	}
	urns := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		urns[i] = h.URN
	}
	l := r.loaderOf(ctx)
	l.prime(ctx, urns)
	modified := make(map[string]int64, len(urns))
	for _, u := range urns {
		info, err := aspectOf[models.PostInfo](ctx, l, u, "postInfo")
		if err != nil {
			return nil, err
		}
		if info != nil {
			modified[u] = info.LastModified
		}
	}
	sort.SliceStable(urns, func(i, j int) bool {
		if modified[urns[i]] != modified[urns[j]] {
			return modified[urns[i]] > modified[urns[j]]
		}
		return urns[i] < urns[j]
	})
	s, c := page(in.Start, in.Count, 20)
	out := &model.ListPostsResult{Start: s, Total: len(urns), Posts: []*model.Post{}}
	for _, u := range window(urns, s, c) {
		out.Posts = append(out.Posts, &model.Post{Urn: u})
	}
	out.Count = len(out.Posts)
	return out, nil
}

// requireAnnouncements fails unless the caller may manage posts.
func (r *Resolver) requireAnnouncements(ctx context.Context, what string) error {
	if r.auth == nil {
		return nil
	}
	has, err := r.auth.PlatformPrivileges(ctx, actorOf(ctx), []string{auth.PrivManageGlobalAnnouncements})
	if err != nil {
		return err
	}
	if !has[auth.PrivManageGlobalAnnouncements] {
		return catalog.Errorf(catalog.Forbidden, "Unauthorized to %s posts. Please contact your DataHub administrator if this needs corrective action.", what)
	}
	return nil
}

// postContent checks and converts the content of a post.
func postContent(in *model.UpdatePostContentInput) (models.PostContent, error) {
	if in == nil {
		return models.PostContent{}, invalidf("content is required")
	}
	if strings.TrimSpace(in.Title) == "" {
		return models.PostContent{}, invalidf("content.title must not be empty")
	}
	c := models.PostContent{Title: in.Title, Type: models.PostContentType(in.ContentType), Description: in.Description, Link: in.Link}
	if in.ContentType == model.PostContentTypeLink && deref(in.Link) == "" {
		return models.PostContent{}, invalidf("content.link is required for a LINK post")
	}
	if in.Media != nil {
		if strings.TrimSpace(in.Media.Location) == "" {
			return models.PostContent{}, invalidf("content.media.location must not be empty")
		}
		c.Media = &models.Media{Type: models.MediaType(in.Media.Type), Location: in.Media.Location}
	}
	return c, nil
}

// CreatePost creates a post with a random id; a post on an entity (or on
// one of its fields, with subResource) targets it.
func (r *mutationResolver) CreatePost(ctx context.Context, in model.CreatePostInput) (*bool, error) {
	if err := r.requireAnnouncements(ctx, "create"); err != nil {
		return nil, err
	}
	content, err := postContent(in.Content)
	if err != nil {
		return nil, err
	}
	var target *string
	if u := deref(in.ResourceUrn); u != "" {
		if _, err := catalog.ParseURN(u); err != nil {
			return nil, invalidf("resourceUrn: %v", err)
		}
		if sub := deref(in.SubResource); sub != "" {
			u = catalog.NewURN("schemaField", u, sub)
		}
		target = &u
	} else if deref(in.SubResource) != "" {
		return nil, invalidf("subResource needs a resourceUrn")
	}
	st := stamp(ctx)
	if _, err := r.create(ctx, "post", "Post", nil, func(urn string, p *proposals) {
		p.add(urn, "postInfo", models.PostInfo{Type: models.PostType(in.PostType), Content: content, Created: st.Time, LastModified: st.Time,
			AuditStamp: &st, Target: target})
	}); err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdatePost replaces the type and content of a post.
func (r *mutationResolver) UpdatePost(ctx context.Context, in model.UpdatePostInput) (*bool, error) {
	if err := r.requireAnnouncements(ctx, "update"); err != nil {
		return nil, err
	}
	content, err := postContent(in.Content)
	if err != nil {
		return nil, err
	}
	info, err := aspectOf[models.PostInfo](ctx, r.loaderOf(ctx), in.Urn, "postInfo")
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, catalog.Errorf(catalog.NotFound, "Failed to edit/update post for urn %s as post doesn't exist", in.Urn)
	}
	info.Type, info.Content, info.LastModified = models.PostType(in.PostType), content, now()
	p, err := proposal(in.Urn, "postInfo", info)
	if err != nil {
		return nil, err
	}
	if err := r.write(ctx, p); err != nil {
		return nil, err
	}
	return yes, nil
}

// DeletePost deletes a post.
func (r *mutationResolver) DeletePost(ctx context.Context, urn string) (*bool, error) {
	if err := r.requireAnnouncements(ctx, "delete"); err != nil {
		return nil, err
	}
	return r.remove(ctx, urn, "post")
}
