package meili

import (
	"strconv"
	"strings"
)

// segments splits a browse path into its non-empty segments: "/prod/kafka/"
// and "prod//kafka" both give [prod kafka]; "/" and "" give none.
func segments(path string) []string {
	var out []string
	for s := range strings.SplitSeq(path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// joinPath is the canonical form of a path: "/" for the root, else "/a/b".
func joinPath(segs []string) string { return "/" + strings.Join(segs, "/") }

// bpAttr names the attribute holding the browse path prefixes of depth d.
func bpAttr(d int) string { return attrBPrefix + strconv.Itoa(d) }

// browseFields expands an entity's browse paths into the attributes that
// answer Browse with filters and one facet only. An entity is listed at each
// of its browse paths, so with a path P of depth d:
//
//   - _loc holds the paths: the entities directly at P are _loc = P;
//   - _anc holds every strict ancestor of every path, the root "/" included:
//     the entities strictly below P (the members of its groups, which
//     BrowseResult.Total counts) are _anc = P;
//   - _bp<k>, for k = 1..maxDepth, holds the prefixes of k segments of the
//     paths: under the filter _anc = P, the facet distribution of _bp<d+1>
//     counts, for each child group of P, the entities at or below it.
//
// Paths deeper than maxDepth contribute their first maxDepth prefixes only.
func browseFields(paths []string, maxDepth int) (locs, anc []string, prefixes map[int][]string) {
	seen := map[string]bool{}
	add := func(list *[]string, kind, v string) {
		if key := kind + "\x00" + v; !seen[key] {
			seen[key] = true
			*list = append(*list, v)
		}
	}
	prefixes = map[int][]string{}
	for _, p := range paths {
		segs := segments(p)
		if len(segs) == 0 {
			continue
		}
		add(&locs, "loc", encodeExact(joinPath(segs)))
		for d := 0; d < len(segs); d++ {
			add(&anc, "anc", encodeExact(joinPath(segs[:d])))
		}
		for d := 1; d <= len(segs) && d <= maxDepth; d++ {
			list := prefixes[d]
			add(&list, "bp"+strconv.Itoa(d), encodeExact(joinPath(segs[:d])))
			prefixes[d] = list
		}
	}
	return locs, anc, prefixes
}

// childGroup returns the name of the group that prefix (a decoded _bp<d+1>
// value) forms under parent (of depth d), or ok false when prefix is not a
// direct child of parent: an entity with several browse paths brings the
// prefixes of all of them into the facet distribution.
func childGroup(parent []string, prefix string) (string, bool) {
	segs := segments(prefix)
	if len(segs) != len(parent)+1 {
		return "", false
	}
	for i, s := range parent {
		if segs[i] != s {
			return "", false
		}
	}
	return segs[len(parent)], true
}
