package ingestion

import (
	"strings"
	"testing"
)

func TestCipher(t *testing.T) {
	c, err := NewCipher("a key")
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCipher("another key")
	if err != nil {
		t.Fatal(err)
	}
	const urn, value = "urn:li:dataHubSecret:A", "p@ss \"word\"\n"
	sealed := c.Encrypt(urn, value)
	if strings.Contains(sealed, "word") || !strings.HasPrefix(sealed, cipherPrefix) {
		t.Fatalf("sealed form %q", sealed)
	}
	if again := c.Encrypt(urn, value); again == sealed {
		t.Errorf("two encryptions of one value are equal: the nonce is not fresh")
	}
	if got, err := c.Decrypt(urn, sealed); err != nil || got != value {
		t.Errorf("Decrypt = %q, %v; want %q", got, err, value)
	}
	for _, tt := range []struct {
		name, urn, stored string
		c                 *Cipher
		want              string
	}{
		{"another secret's value", "urn:li:dataHubSecret:B", sealed, c, "does not decrypt"},
		{"another key", urn, sealed, other, "does not decrypt"},
		{"a plain value", urn, "plain", c, "not encrypted"},
		{"bad base64", urn, cipherPrefix + "%%%", c, "malformed"},
		{"too short", urn, cipherPrefix + "AAAA", c, "malformed"},
		{"altered", urn, sealed[:len(sealed)-4] + "AAA=", c, "does not decrypt"},
	} {
		if _, err := tt.c.Decrypt(tt.urn, tt.stored); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := NewCipher(" "); err == nil {
		t.Errorf("an empty key was accepted")
	}
}

func TestTailMasksAndBounds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		max    int
		writes []string
		mask   []string
		want   string
	}{
		{"kept whole", 100, []string{"a", "b\n"}, nil, "ab\n"},
		{"masked across writes", 100, []string{"pass=hun", "ter2\n"}, []string{"hunter2"}, "pass=********\n"},
		{"longest first", 100, []string{"abcdef abc"}, []string{"abc", "abcdef"}, "******** ********"},
		{"last bytes kept", 10, []string{"0123456789", "abcde"}, nil, "[5 earlier bytes of output not kept]\n56789abcde"},
		{"a cut secret is not shown", 8, []string{"xxsecret12", "34"}, []string{"secret"}, "[4 earlier bytes of output not kept]\n********1234"},
		{"a whole secret after a cut", 10, []string{"xxsecret12", "34"}, []string{"secret"}, "[2 earlier bytes of output not kept]\n********1234"},
	} {
		w := newTail(tt.max)
		w.mask(tt.mask)
		for _, s := range tt.writes {
			w.Write([]byte(s))
		}
		if got := w.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
