package auth

import "context"

// Delegated marks ctx as carrying writes whose authority the caller has
// checked against other entities than those written: an incident is
// raised with the right to edit the incidents of the assets it is on, not
// the incident itself, as DataHub decides. The ingest authorizer then
// lets the writes through.
func Delegated(ctx context.Context) context.Context { return preauthorized(ctx) }

// RequireOn fails with Forbidden unless actor holds one of privs, or
// EDIT_ENTITY, on every one of urns.
func (s *Service) RequireOn(ctx context.Context, actor, what string, urns []string, privs ...string) error {
	for _, u := range urns {
		if err := s.Require(ctx, actor, resourceOf(u), what, append([]string{PrivEditEntity}, privs...)...); err != nil {
			return err
		}
	}
	return nil
}
