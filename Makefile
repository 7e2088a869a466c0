# catalogd — see README.md. `make run` starts the server on the embedded store;
# `make test` runs every test (PostgreSQL ones when CATALOGD_TEST_POSTGRES is set).
GO       ?= go
BIN      := bin/catalogd
ADDR     ?= 127.0.0.1:8080
DATA_DIR ?= data
NPM      ?= npm
# The GraphiQL explorer's bundle is built from npm packages pinned in
# $(WEBUI)/package-lock.json into $(WEBUI)/dist, which is committed so that
# `go build` and `make run` need no Node.
WEBUI    := internal/webui/graphiql
GENERATED := gen/ openapi/entities.gen.json internal/graphql/model/models_gen.go internal/graphql/model/fields_gen.go $(WEBUI)/dist/
# sqlite_fts5 links SQLite's C library through cgo (github.com/mattn/go-sqlite3,
# with FTS5), about 1.8 times faster than the pure-Go driver a plain `go build`
# uses; where cgo is off (no C compiler) the tag changes nothing. The first
# build compiles SQLite, about a minute; later builds reuse it.
TAGS     ?= sqlite_fts5

.PHONY: generate webui build run test check-generated vet bench clean

generate: webui
	$(GO) generate ./schemas/... ./openapi/... ./graphql/...

webui: $(WEBUI)/node_modules/.package-lock.json
	cd $(WEBUI) && node build.mjs

# npm ci only when the pins change: it writes node_modules/.package-lock.json.
$(WEBUI)/node_modules/.package-lock.json: $(WEBUI)/package.json $(WEBUI)/package-lock.json
	cd $(WEBUI) && $(NPM) ci

build:
	$(GO) build -tags '$(TAGS)' -o $(BIN) ./cmd/catalogd

run: build
	./$(BIN) serve --addr $(ADDR) --data-dir $(DATA_DIR)

# Regenerating must not change gen/ or the web bundle: the committed files
# are exactly what the schemas and the pinned packages produce.
check-generated: generate
	@git diff --exit-code --stat -- $(GENERATED) || { echo "generated files are stale: run 'make generate' and commit the result"; exit 1; }
	@test -z "$$(git status --porcelain -- $(GENERATED))" || { git status --porcelain -- $(GENERATED); echo "untracked generated files: run 'make generate' and commit"; exit 1; }

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'); echo "gofmt needed"; exit 1; }
	$(GO) vet -tags '$(TAGS)' ./...
	$(GO) vet ./internal/store/...

# The GraphQL-over-HTTP audit (cmd/catalogd/graphql_audit_test.go) runs the
# npm package graphql-http, pinned in $(GQLAUDIT)/package-lock.json.
GQLAUDIT := internal/graphql/audit

$(GQLAUDIT)/node_modules/.package-lock.json: $(GQLAUDIT)/package.json $(GQLAUDIT)/package-lock.json
	@if command -v $(NPM) >/dev/null; then cd $(GQLAUDIT) && $(NPM) ci --no-audit --no-fund; \
	else echo "npm not found: the graphql-http audit will be skipped"; fi

test: check-generated vet $(GQLAUDIT)/node_modules/.package-lock.json
	$(GO) test -tags '$(TAGS)' -timeout 15m ./...
	@# The store and search suites again on the pure-Go SQLite driver, which
	@# builds without the tag (or without cgo) use.
	$(GO) test -timeout 5m ./internal/store/... ./internal/search/...

bench:
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchtime 2s ./...

clean:
	rm -rf bin $(WEBUI)/node_modules
