package auth

import (
	"context"
	"encoding/json"
	"fmt"
)

// NativeUsers reports, for those of users that have stored credentials,
// whether they are native users: whether their corpUserCredentials aspect
// holds a salt and a hashed password, as DataHub decides it. Users without
// the aspect are absent from the answer. The credentials themselves never
// leave this package.
func (s *Service) NativeUsers(ctx context.Context, users []string) (map[string]bool, error) {
	m, err := s.db.LatestAspects(ctx, users, []string{"corpUserCredentials"})
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	out := make(map[string]bool, len(m))
	for urn, as := range m {
		for _, a := range as {
			var c struct {
				Salt           *string `json:"salt"`
				HashedPassword *string `json:"hashedPassword"`
			}
			if err := json.Unmarshal(a.Value, &c); err != nil {
				return nil, fmt.Errorf("decode credentials of %s: %w", urn, err)
			}
			out[urn] = c.Salt != nil && c.HashedPassword != nil
		}
	}
	return out, nil
}
