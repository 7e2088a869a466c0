// Entry point of the GraphiQL bundle served at /api/graphiql. The page
// (internal/webui/graphiql.html) provides <div id="graphiql"
// data-endpoint="..."> and loads this bundle; everything else comes from the
// pinned npm packages, so the explorer works with no internet access.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';

// A plain fetch-based fetcher instead of @graphiql/toolkit's: catalogd has no
// subscriptions, and toolkit's optional graphql-ws import would only bloat the
// bundle. Headers typed in GraphiQL's headers pane (e.g. Authorization) are
// sent along; cookies of the same origin are too.
function fetcher(endpoint) {
  return async (params, opts) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        ...(opts && opts.headers),
      },
      body: JSON.stringify(params),
    });
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      // A non-JSON answer (e.g. 400 with an empty body) is still shown in
      // the result pane rather than failing silently.
      return { errors: [{ message: `HTTP ${res.status}: ${text || res.statusText}` }] };
    }
  };
}

const root = document.getElementById('graphiql');
// The endpoint is resolved against the page URL so the explorer works behind
// any host or path prefix.
const endpoint = new URL(root.dataset.endpoint || 'graphql', window.location.href).toString();
createRoot(root).render(
  React.createElement(GraphiQL, {
    fetcher: fetcher(endpoint),
    defaultQuery: root.dataset.defaultQuery || undefined,
  }),
);
