# thumbd: the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
# Extra flags for `make run`, e.g. ARGS="--port 9000".
ARGS ?=

.PHONY: deps build release run test docs fuzz test-tsan test-mutation bench clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product thumbd

# Serves http://localhost:8080 with the images in ./images, as config/thumbd.yaml says.
run: release
	@scripts/face-model.sh
	@scripts/demo-media.sh
	.build/release/thumbd serve $(ARGS)

# The client's tests run on their own: they are async and need the cooperative thread pool,
# which the server suites' blocking socket tests (and the headless-Chromium one) can hold
# for many seconds on a 2-core machine.
test:
	@scripts/ensure-deps.sh --tests
	@scripts/face-photos.sh
	@scripts/face-model.sh
	@scripts/demo-media.sh
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip ThumbdKitTests
	$(SWIFT) test --skip-build --filter ThumbdKitTests
	scripts/openapi-check.sh
	scripts/docs-examples.sh
	scripts/docs-links.sh
	scripts/folder-order.py
	scripts/fuzz-replay.sh
	scripts/fuzz.sh 20
	scripts/crash-test.sh
	scripts/memory-test.sh
	scripts/hadolint.sh
	scripts/docker-test.sh

# Writes the reference tables of docs/ (configuration keys, URL parameters) from the code;
# `make test` fails while a page differs from what this would write. See docs/development.md.
docs: deps
	THUMBD_WRITE_DOCS=1 $(SWIFT) test --filter ReferenceDocsTests

# libFuzzer on every parser for FUZZ_SECONDS each (default 60); see scripts/fuzz.sh.
FUZZ_SECONDS ?= 60
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

# The concurrency suites under ThreadSanitizer (not part of `make test`: see docs/development.md).
test-tsan: deps
	scripts/test-tsan.sh

# Small bugs put into a scratch copy one at a time, each run against its nearest tests
# (not part of `make test`: about 15 minutes); see scripts/mutation-check.py.
test-mutation: deps
	scripts/mutation-check.sh

# Benchmarks against nginx on loopback; installs nginx and wrk from apt when missing.
bench: release
	bench/run.sh

clean:
	rm -rf .build .build-fuzz .build-tsan
