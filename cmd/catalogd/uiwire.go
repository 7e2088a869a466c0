package main

import (
	"net/http"
	"strings"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/restli"
	"github.com/catalogd/catalogd/internal/webui"
)

// apiRoots are the first path segments of the API: the web app never
// answers them, so that a mistyped API call gets the API's 404 rather than
// the app's page.
var apiRoots = map[string]bool{
	"api": true, "openapi": true, "openapi.json": true, "aspects": true, "entities": true, "entitiesV2": true,
	"relationships": true, "operations": true, "gms": true, "config": true, "health": true, "metrics": true,
	"restli": true, "debug": true,
	strings.TrimPrefix(auth.LoginPath, "/"): true, strings.TrimPrefix(auth.LogoutPath, "/"): true,
	strings.TrimPrefix(auth.SignUpPath, "/"): true, strings.TrimPrefix(auth.ResetCredentialsPath, "/"): true,
	strings.TrimPrefix(auth.AuthenticatePath, "/"): true, strings.TrimPrefix(auth.SSOPath, "/"): true,
	strings.Trim(auth.CallbackPath, "/"): true, strings.TrimPrefix(auth.TrackPath, "/"): true,
}

func isAPIPath(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return apiRoots[first]
}

// withApp puts the web app behind the API's routes: a GET or HEAD no API
// route takes is the app's. It returns the handler and the route namer of
// the metrics.
func withApp(api *restli.Handler, app *webui.App) (http.Handler, func(*http.Request) string) {
	if app == nil {
		return api, api.Route
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if api.Route(r) == "" && app.Serves(r) {
			app.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
	route := func(r *http.Request) string {
		if p := api.Route(r); p != "" {
			return p
		}
		if app.Serves(r) {
			return "GET /{app}"
		}
		return ""
	}
	return h, route
}

// registerSignIn adds datahub-frontend's browser sign-in routes.
func registerSignIn(api *restli.Handler, svc *auth.Service, withUI bool) {
	// Without the web app, signing in and out happens on the GraphQL
	// explorer, the one page of catalogd's own that signs in.
	next := webui.GraphiQLPath
	if withUI {
		next = auth.WebLoginPath
	}
	api.HandleFunc("GET "+auth.LogoutPath, svc.LogoutHandler(next))
	api.HandleFunc("GET "+auth.AuthenticatePath, svc.AuthenticateHandler(next, nil))
	api.HandleFunc("POST "+auth.SignUpPath, svc.SignUpHandler(restli.WriteError))
	api.HandleFunc("POST "+auth.ResetCredentialsPath, svc.ResetHandler(restli.WriteError))
}
