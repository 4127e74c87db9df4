# thumbd: the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080
LIBRARY ?= ./images
CACHE_DIR ?= ./cache

.PHONY: deps build release run test bench clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product thumbd

# Serves http://localhost:$(PORT) with the images in $(LIBRARY).
run: release
	.build/release/thumbd serve --port $(PORT) --library $(LIBRARY) --cache-dir $(CACHE_DIR)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/crash-test.sh

# Benchmarks against nginx on loopback; installs nginx and wrk from apt when missing.
bench: release
	bench/run.sh

clean:
	rm -rf .build
