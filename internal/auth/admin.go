package auth

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/google/uuid"
)

// Stored is one stored aspect value of an administrative entity.
type Stored struct {
	URN   string
	Value json.RawMessage
}

// adminKind describes an entity only a platform privilege manages.
type adminKind struct {
	entity, prefix, infoAspect, keyAspect, privilege, what string
	// upsert lets a write name a URN that does not exist yet, creating the
	// entity there: DataHub's policy resolver does, and its terraform
	// provider creates policies that way, at a URN of its choosing.
	upsert bool
}

var (
	policies = adminKind{"dataHubPolicy", policyPrefix, "dataHubPolicyInfo", "dataHubPolicyKey", PrivManagePolicies, "policies", true}
	sources  = adminKind{"dataHubIngestionSource", "urn:li:dataHubIngestionSource:", "dataHubIngestionSourceInfo", "dataHubIngestionSourceKey", PrivManageIngestion, "ingestion sources", false}
)

// put creates (urn empty: a new id) or replaces (urn must exist unless the
// kind upserts) the info
// aspect of an administrative entity, through the ingest pipeline, so the
// write is versioned, indexed and audited.
func (s *Service) put(ctx context.Context, k adminKind, caller, urn string, info any) (string, error) {
	if err := s.Require(ctx, caller, Resource{}, "manage "+k.what, k.privilege); err != nil {
		return "", err
	}
	if urn == "" {
		urn = k.prefix + uuid.NewString()
	} else {
		u, err := catalog.ParseURN(urn)
		if err != nil || u.EntityType() != k.entity {
			return "", catalog.Errorf(catalog.Invalid, "%q is not a %s URN", urn, k.entity)
		}
		if !k.upsert {
			m, err := s.db.LatestAspects(ctx, []string{urn}, []string{k.keyAspect})
			if err != nil {
				return "", fmt.Errorf("read %s: %w", urn, err)
			}
			if len(m[urn]) == 0 {
				return "", catalog.Errorf(catalog.NotFound, "%s does not exist", urn)
			}
		}
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{proposal(k.entity, urn, k.infoAspect, info)}); err != nil {
		return "", err
	}
	return urn, nil
}

// list returns the info aspects of every entity of kind k.
func (s *Service) list(ctx context.Context, k adminKind, caller string) ([]Stored, error) {
	if err := s.Require(ctx, caller, Resource{}, "manage "+k.what, k.privilege); err != nil {
		return nil, err
	}
	var out []Stored
	const page = 1000
	for off := 0; ; off += page {
		rows, err := s.db.ScanLatest(ctx, catalog.ScanQuery{URNLike: k.prefix + "%", Aspect: k.infoAspect, Offset: off, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", k.what, err)
		}
		for _, r := range rows {
			out = append(out, Stored{URN: r.URN, Value: r.Value})
		}
		if len(rows) < page {
			return out, nil
		}
	}
}

// PutPolicy creates (urn "": with a new id) or creates or replaces the
// policy urn; info is a
// dataHubPolicyInfo value. It takes effect at once in this process.
func (s *Service) PutPolicy(ctx context.Context, caller, urn string, info map[string]any) (string, error) {
	info["lastUpdatedTimestamp"] = s.now().UnixMilli()
	if _, ok := info["editable"]; !ok {
		info["editable"] = true
	}
	urn, err := s.put(ctx, policies, caller, urn, info)
	if err == nil {
		s.policies.invalidate()
	}
	return urn, err
}

// DeletePolicy deletes a policy (DeletePolicyEvent).
func (s *Service) DeletePolicy(ctx context.Context, caller, urn string) error {
	if err := s.Require(ctx, caller, Resource{}, "manage policies", PrivManagePolicies); err != nil {
		return err
	}
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != policies.entity {
		return catalog.Errorf(catalog.Invalid, "%q is not a dataHubPolicy URN", urn)
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{{
		EntityType: policies.entity, EntityURN: urn, AspectName: policies.keyAspect, ChangeType: catalog.Delete,
	}}); err != nil {
		return err
	}
	s.policies.invalidate()
	return nil
}

// ListPolicies returns every policy (dataHubPolicyInfo values).
func (s *Service) ListPolicies(ctx context.Context, caller string) ([]Stored, error) {
	return s.list(ctx, policies, caller)
}

// PutIngestionSource creates (urn "") or replaces an ingestion source; info
// is a dataHubIngestionSourceInfo value.
func (s *Service) PutIngestionSource(ctx context.Context, caller, urn string, info map[string]any) (string, error) {
	return s.put(ctx, sources, caller, urn, info)
}

// ListIngestionSources returns every ingestion source.
func (s *Service) ListIngestionSources(ctx context.Context, caller string) ([]Stored, error) {
	return s.list(ctx, sources, caller)
}
