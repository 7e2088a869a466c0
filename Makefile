# catalogd — see README.md. `make run` starts the server on the embedded store;
# `make test` runs every test (PostgreSQL ones when CATALOGD_TEST_POSTGRES is set).
GO       ?= go
BIN      := bin/catalogd
ADDR     ?= 127.0.0.1:8080
DATA_DIR ?= data

.PHONY: generate build run test check-generated vet bench clean

generate:
	$(GO) generate ./schemas/... ./openapi/...

build:
	$(GO) build -o $(BIN) ./cmd/catalogd

run: build
	./$(BIN) serve --addr $(ADDR) --data-dir $(DATA_DIR)

# Regenerating must not change gen/: the committed code matches the schemas.
check-generated: generate
	@git diff --exit-code --stat -- gen/ || { echo "gen/ is stale: run 'make generate' and commit the result"; exit 1; }
	@test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo "gen/ has untracked generated files: run 'make generate' and commit"; exit 1; }

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

test: check-generated vet
	$(GO) test -timeout 9m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...

clean:
	rm -rf bin
