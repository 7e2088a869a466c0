package auth

import (
	"context"
	"fmt"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/uptrace/bun"
)

var _ ingest.Auditor = (*Service)(nil)

// membershipAspects change which policies apply to a user.
var membershipAspects = map[string]bool{"groupMembership": true, "nativeGroupMembership": true, "roleMembership": true}

// RecordChanges implements ingest.Auditor to learn of writes that change
// access, whichever API made them: a deleted token entity is a revocation
// (recorded in the same transaction for the other replicas, and evicted from
// this process's cache), and a changed policy or membership invalidates the
// policy cache.
func (s *Service) RecordChanges(ctx context.Context, tx catalog.Tx, _ string, at int64, changes []ingest.Change) error {
	for _, c := range changes {
		switch {
		case c.EntityType == "dataHubAccessToken" && c.Deleted && c.Key:
			hash := c.URN[len(tokenPrefix):]
			s.tokens.evict(hash)
			bt, ok := tx.(interface{ Bun() bun.Tx })
			if !ok {
				return fmt.Errorf("record revocation: transaction %T has no SQL handle", tx)
			}
			if _, err := bt.Bun().Tx.ExecContext(ctx, s.rebind(`INSERT INTO auth_revocation (token_hash, revoked_on) VALUES (?, ?)
ON CONFLICT (token_hash) DO UPDATE SET revoked_on = excluded.revoked_on`), hash, at); err != nil {
				return &catalog.Error{Kind: catalog.Internal, Op: "record revocation", Err: err}
			}
		case c.EntityType == "dataHubPolicy" || membershipAspects[c.Aspect]:
			s.policies.invalidate()
		}
	}
	return nil
}
