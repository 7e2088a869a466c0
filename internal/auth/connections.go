package auth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Connections (dataHubConnection entities) keep the JSON blob of their
// credentials encrypted, as DataHub does: AES-GCM with a key derived from
// the token signing key, which the database does not hold.

// PrivManageConnections lets a user create and read connections.
const PrivManageConnections = "MANAGE_CONNECTIONS"

func (s *Service) connectionKey() []byte {
	m := hmac.New(sha256.New, s.signingKey)
	m.Write([]byte("catalogd connection encryption"))
	return m.Sum(nil)
}

// SealConnection encrypts a connection's blob for storage.
func (s *Service) SealConnection(plain string) (string, error) {
	gcm, err := s.connectionCipher()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(plain), []byte("dataHubConnection"))), nil
}

// OpenConnection decrypts a stored connection blob for a caller holding
// MANAGE_CONNECTIONS; others get Forbidden.
func (s *Service) OpenConnection(ctx context.Context, actor, sealed string) (string, error) {
	if err := s.Require(ctx, actor, Resource{}, "read connections", PrivManageConnections); err != nil {
		return "", err
	}
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil {
		return "", catalog.Errorf(catalog.Internal, "stored connection blob is not sealed: %v", err)
	}
	gcm, err := s.connectionCipher()
	if err != nil {
		return "", err
	}
	if len(b) < gcm.NonceSize() {
		return "", catalog.Errorf(catalog.Internal, "stored connection blob too short")
	}
	plain, err := gcm.Open(nil, b[:gcm.NonceSize()], b[gcm.NonceSize():], []byte("dataHubConnection"))
	if err != nil {
		return "", catalog.Errorf(catalog.Internal, "open connection blob (was the signing key changed?): %v", err)
	}
	return string(plain), nil
}

func (s *Service) connectionCipher() (cipher.AEAD, error) {
	block, err := aes.NewCipher(s.connectionKey())
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
