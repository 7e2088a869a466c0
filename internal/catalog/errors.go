package catalog

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it. Each protocol
// adapter maps a Kind to its own status codes exactly once.
type Kind uint8

// The kinds of error. Internal is the zero value so that an unclassified error
// is never mistaken for a client mistake.
const (
	Internal     Kind = iota // a bug or an unexpected failure; details are logged, not shown
	Invalid                  // the request is malformed or violates the model
	NotFound                 // the thing asked for does not exist
	Conflict                 // the request conflicts with the current state (e.g. already exists)
	Unauthorized             // no valid credentials
	Forbidden                // valid credentials without the needed privilege
	Unavailable              // a dependency is down; retrying later may succeed
	TooLarge                 // the request body exceeds the configured limit
	Precondition             // a condition the request set on the current state does not hold
)

func (k Kind) String() string {
	switch k {
	case Invalid:
		return "invalid"
	case NotFound:
		return "not found"
	case Conflict:
		return "conflict"
	case Unauthorized:
		return "unauthorized"
	case Forbidden:
		return "forbidden"
	case Unavailable:
		return "unavailable"
	case TooLarge:
		return "too large"
	case Precondition:
		return "precondition failed"
	}
	return "internal error"
}

// Error is the one error type of catalogd. Msg is safe to show to users; Err
// (the cause) is for logs only when Kind is Internal.
type Error struct {
	Kind Kind
	Op   string // the operation that failed, e.g. "ingest proposal 3"
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	} else if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Op != "" {
		return e.Op + ": " + msg
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted user-facing message.
func Errorf(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// WithOp prefixes err with an operation name, keeping its kind.
func WithOp(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return &Error{Kind: e.Kind, Op: op, Err: err}
	}
	return &Error{Kind: Internal, Op: op, Err: err}
}

// KindOf reports the kind of err: the kind of the outermost *Error in its
// chain, or Internal when there is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Message returns the text of err that is safe to show a user: the full chain
// for classified errors, a generic text for internal ones.
func Message(err error) string {
	if KindOf(err) == Internal {
		return "internal error"
	}
	return err.Error()
}
