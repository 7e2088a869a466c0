package ingestion

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// cipherPrefix marks the stored form of an encrypted secret value, so that
// a value written by some other means (a plain value proposed through the
// rest.li API, say) is recognised as not encrypted rather than misread.
const cipherPrefix = "v1:"

// Cipher encrypts secret values with AES-256-GCM. It is safe for
// concurrent use.
type Cipher struct {
	aead cipher.AEAD
}

// NewCipher returns the Cipher of key, the operator's configured string
// (SECRET_SERVICE_ENCRYPTION_KEY) or a generated one. Its SHA-256 is the AES
// key, so that a key of any length and alphabet gives a full-strength one.
func NewCipher(key string) (*Cipher, error) {
	if strings.TrimSpace(key) == "" {
		return nil, errors.New("the secret encryption key is empty")
	}
	k := sha256.Sum256([]byte(key))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Cipher{aead: aead}, nil
}

// Encrypt seals plain for the secret urn: the URN is authenticated with it,
// so a stored value copied onto another secret does not decrypt there.
func (c *Cipher) Encrypt(urn, plain string) string {
	nonce := make([]byte, c.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand never returns an error
	sealed := c.aead.Seal(nonce, nonce, []byte(plain), []byte(urn))
	return cipherPrefix + base64.StdEncoding.EncodeToString(sealed)
}

// Decrypt opens a value Encrypt sealed for urn.
func (c *Cipher) Decrypt(urn, stored string) (string, error) {
	enc, ok := strings.CutPrefix(stored, cipherPrefix)
	if !ok {
		return "", errors.New("the stored value is not encrypted by catalogd")
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) < c.aead.NonceSize() {
		return "", errors.New("the stored value is malformed")
	}
	plain, err := c.aead.Open(nil, b[:c.aead.NonceSize()], b[c.aead.NonceSize():], []byte(urn))
	if err != nil {
		return "", errors.New("the stored value does not decrypt with the configured key")
	}
	return string(plain), nil
}
