package auth

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
)

var _ ingest.Auditor = (*Service)(nil)

// membershipAspects change which policies apply to a user.
var membershipAspects = map[string]bool{"groupMembership": true, "nativeGroupMembership": true, "roleMembership": true}

// RecordChanges implements ingest.Auditor to learn of writes that change
// access, whichever API made them: a changed policy or membership
// invalidates the policy cache. Revocations and suspensions need no
// notice: every request reads them from the store (see live).
func (s *Service) RecordChanges(_ context.Context, _ catalog.Tx, _ string, _ int64, changes []ingest.Change) error {
	for _, c := range changes {
		if c.EntityType == "dataHubPolicy" || membershipAspects[c.Aspect] {
			s.policies.invalidate()
		}
	}
	return nil
}
