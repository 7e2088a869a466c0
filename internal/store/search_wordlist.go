package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgtype"
)

// A search's last word is a prefix: the user may still be typing it. Both
// engines read a prefix's hits by first gathering the entries of every
// word it begins into one list, even when that is the word itself, so the
// last word is matched whole when no other indexed word begins with it,
// which finds the same hits (lastWordWhole). SQLite lists its text table's
// words in search_fts_words; PostgreSQL's full-text index cannot be asked,
// so search_word lists the words of the documents' tsvectors.
//
// On PostgreSQL the gathering cost more than the rest of the count: for a
// two-word search of 1M datasets, 23.9 ms against 15.7 with the last word
// whole, and each ranking tier read both words' entries again.
//
// The list may hold words no document holds any longer (a deleted
// document's words stay until a rebuild), never fewer than the documents:
// a word too many only keeps a prefix. Its row wordsComplete says it holds
// every word. A database written before the list existed lacks it, and so
// does one whose rebuild is under way (ResetDocuments empties the list):
// their searches match prefixes until a rebuild fills the list.
const wordsComplete = ""

// lastWordWhole reports whether the last of tokens may be matched as a
// whole word rather than a prefix, to the same hits: when no other word of
// the index begins with it.
func (s *Search) lastWordWhole(ctx context.Context, x querier, tokens []string) (bool, error) {
	last := tokens[len(tokens)-1]
	if !s.db.q.pg {
		return ftsLastWordWhole(ctx, x, last)
	}
	// The first word after last in byte order begins with it if any
	// word does (COLLATE "C": byte order, as the index's).
	word := strings.ToValidUTF8(last, "") // as tsLexeme writes it
	var whole bool
	err := x.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_word WHERE word = $1)
	AND coalesce((SELECT NOT starts_with(w.word, $2) FROM search_word w WHERE w.word > $2 ORDER BY w.word LIMIT 1), true)`,
		wordsComplete, word).Scan(&whole)
	if err != nil {
		return false, fmt.Errorf("words beginning with %q: %w", last, err)
	}
	return whole, nil
}

// ftsLastWordWhole is lastWordWhole on SQLite. The look-up is of the
// word's bytes, which are the indexed word's only for lower-case ASCII
// letters and digits (unicode61 folds case and diacritics); other words
// stay prefixes. In a two-word search of 1M datasets the prefix cost
// 1.1-1.5 of 4.1-4.5 ms, the look-up 0.1 ms.
func ftsLastWordWhole(ctx context.Context, x querier, last string) (bool, error) {
	for i := 0; i < len(last); i++ {
		if c := last[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false, nil
		}
	}
	// The bounds hold every word that extends last and not last itself:
	// "\x00" sorts first after it, and no UTF-8 text holds a byte 0xff.
	// Instance rows come without counting a word's documents, which the
	// other kinds of fts5vocab table do before their first row.
	var one int
	err := x.QueryRowContext(ctx, "SELECT 1 FROM search_fts_words WHERE term >= ? AND term <= ? LIMIT 1", last+"\x00", last+"\xff").Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("words beginning with %q: %w", last, err)
	}
	return false, nil
}

// tagBytes are the first bytes of the lexemes that are not the analyzer's
// words: bucket tags and the sample tag.
var tagBytes = string(bucketTags[:]) + sampleTag

// plainWords adds to set the analyzer's words of a document's search
// tsvector: its lexemes but the bucket-tagged and sample words.
func plainWords(v pgtype.TSVector, set map[string]struct{}) {
	for _, l := range v.Lexemes {
		if l.Word == "" || strings.IndexByte(tagBytes, l.Word[0]) >= 0 {
			continue
		}
		set[l.Word] = struct{}{}
	}
}

// addWords lists the words of rows, inside the transaction writing them.
// In byte order, so that transactions adding the same new words wait for
// each other in one order.
func addWords(ctx context.Context, tx *Tx, rows []docRow) error {
	set := map[string]struct{}{}
	for _, r := range rows {
		plainWords(r.tsv, set)
	}
	return insertWords(ctx, tx.q, set)
}

// insertWords adds words to search_word, those it holds already left out.
func insertWords(ctx context.Context, x querier, set map[string]struct{}) error {
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	slices.Sort(words)
	// Statements of a bounded size: a rebuild of 1M datasets lists as
	// many words (their names' numbers).
	const chunk = 50000
	for len(words) > 0 {
		n := min(chunk, len(words))
		if _, err := x.ExecContext(ctx, "INSERT INTO search_word (word) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", words[:n]); err != nil {
			return fmt.Errorf("list %d words: %w", n, err)
		}
		words = words[n:]
	}
	return nil
}

// rebuildWords collects the words of a rebuild's documents, which
// FinishReset lists at once: listing each batch's words as it was written
// probed the list for every word of every batch.
//
// Two rebuilds at once (each empties the index) leave the list complete
// when the last one ends; in between, the first to end marks it complete
// without the words of the other's next batches, as the index itself is
// then partly filled.
type rebuildWords struct {
	mu    sync.Mutex
	began bool // ResetDocuments emptied the list
	set   map[string]struct{}
}

// begin notes that ResetDocuments emptied the list.
func (r *rebuildWords) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.began = true
}

// add collects the words of a rebuild's rows (InsertPrepared).
func (r *rebuildWords) add(rows []docRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set == nil {
		r.set = map[string]struct{}{}
	}
	for _, row := range rows {
		plainWords(row.tsv, r.set)
	}
}

// finishWords lists the words a rebuild collected, in a transaction of its
// own, and marks the list complete. A rebuild that failed part way lists
// the words of every batch it tried, a superset of those it wrote.
func (s *Search) finishWords(ctx context.Context) error {
	r := &s.rebuild
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.began {
		return nil
	}
	set := r.set
	if set == nil {
		set = map[string]struct{}{}
	}
	set[wordsComplete] = struct{}{}
	// A failure leaves the list incomplete, as ResetDocuments left it,
	// and these words to a later rebuild.
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := insertWords(ctx, tx, set); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.began, r.set = false, nil
	return nil
}
