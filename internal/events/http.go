package events

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// PollPath is where the stream is served.
const PollPath = "/openapi/v1/events/poll"

type externalEvent struct {
	ContentType string `json:"contentType"`
	Value       string `json:"value"`
}

type pollResponse struct {
	OffsetID string          `json:"offsetId"`
	Count    int             `json:"count"`
	Events   []externalEvent `json:"events"`
}

// PollHandler serves GET PollPath. writeError answers errors in the
// protocol's error format; authorization is the caller's business.
func (s *Stream) PollHandler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := parsePoll(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		b, err := s.Poll(r.Context(), q)
		if err != nil {
			writeError(w, r, err)
			return
		}
		resp := pollResponse{OffsetID: EncodeOffset(b.Next), Count: len(b.Events), Events: make([]externalEvent, len(b.Events))}
		for i, e := range b.Events {
			resp.Events[i] = externalEvent{ContentType: "application/json", Value: string(e)}
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(resp)
	}
}

func parsePoll(r *http.Request) (PollQuery, error) {
	vals := r.URL.Query()
	topic := vals.Get("topic")
	if topic == "" {
		return PollQuery{}, catalog.Errorf(catalog.Invalid, "query parameter topic is required (%s)", Topic)
	}
	if topic != Topic {
		return PollQuery{}, catalog.Errorf(catalog.Invalid, "unsupported events topic %q (the one topic is %s)", topic, Topic)
	}
	q := PollQuery{Limit: DefaultLimit, Timeout: DefaultTimeout}
	intParam := func(name string, min int) (int, bool, error) {
		s := vals.Get(name)
		if s == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < min {
			return 0, false, catalog.Errorf(catalog.Invalid, "query parameter %s must be an integer of at least %d, not %q", name, min, s)
		}
		return n, true, nil
	}
	if id := vals.Get("offsetId"); id != "" {
		pos, err := DecodeOffset(id)
		if err != nil {
			return PollQuery{}, err
		}
		q.From = &pos
	}
	if n, ok, err := intParam("limit", 1); err != nil {
		return PollQuery{}, err
	} else if ok {
		q.Limit = min(n, MaxLimit)
	}
	if n, ok, err := intParam("pollTimeoutSeconds", 0); err != nil {
		return PollQuery{}, err
	} else if ok {
		q.Timeout = min(time.Duration(n)*time.Second, MaxTimeout)
	}
	if n, ok, err := intParam("lookbackWindowDays", 0); err != nil {
		return PollQuery{}, err
	} else if ok {
		q.LookbackDays = n
	}
	return q, nil
}
