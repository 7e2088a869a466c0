package restli

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
)

// The exception class rest.li reports for errors raised by resources.
const exceptionClass = "com.linkedin.restli.server.RestLiServiceException"

// StatusOf maps an error kind to its HTTP status: the one place the rest.li
// protocol decides status codes.
func StatusOf(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	switch catalog.KindOf(err) {
	case catalog.Invalid:
		return http.StatusBadRequest
	case catalog.NotFound:
		return http.StatusNotFound
	case catalog.Conflict:
		return http.StatusConflict
	case catalog.Precondition:
		return http.StatusPreconditionFailed
	case catalog.Unauthorized:
		return http.StatusUnauthorized
	case catalog.Forbidden:
		return http.StatusForbidden
	case catalog.Unavailable:
		return http.StatusServiceUnavailable
	case catalog.TooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// errorBody is rest.li's ErrorResponse record.
type errorBody struct {
	Status         int    `json:"status"`
	Message        string `json:"message"`
	ExceptionClass string `json:"exceptionClass"`
	StackTrace     string `json:"stackTrace"`
}

// WriteError answers with a rest.li error body. Internal errors are logged
// with their cause and shown to the caller only as "internal error".
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	msg := catalog.Message(err)
	if status == http.StatusRequestEntityTooLarge {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			msg = fmt.Sprintf("request body exceeds the limit of %d bytes", mbe.Limit)
		}
	}
	if status == http.StatusInternalServerError {
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if r.Header.Get(protocolHeader) == protocol2 {
		h.Set("X-RestLi-Error-Response", "true")
	} else {
		h.Set("X-LinkedIn-Error-Response", "true")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{
		Status:         status,
		Message:        msg,
		ExceptionClass: exceptionClass,
		StackTrace:     fmt.Sprintf("%s [HTTP Status:%d]: %s", exceptionClass, status, msg),
	})
}
