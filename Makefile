# MemoryHub developer commands. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_STAMP := clients/typescript/node_modules/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# Benchmarks and tests load numpy before memoryhub (which sets the same): one BLAS thread, no idle spinning.
export OPENBLAS_NUM_THREADS := 1

.PHONY: setup system-deps run test test-fast docs fuzz bench eval bench-scale bench-consolidation eval-defense defense-cost eval-workloads bench-web chaos load route-cost semantic-paths lint stop clean client-models

system-deps:
	@if ! command -v redis-server >/dev/null 2>&1; then \
		echo "installing redis-server"; \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
		else \
			echo "redis-server is missing: install it (Debian/Ubuntu: sudo apt-get install redis-server)"; exit 1; \
		fi; \
	fi
	@# The TypeScript client's tests run on Node (Debian's nodejs and npm; Node 20 or later).
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "installing nodejs and npm"; \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
		else \
			echo "node/npm are missing: install them (Debian/Ubuntu: sudo apt-get install nodejs npm)"; exit 1; \
		fi; \
	fi
	@# Browser tests drive Debian's Chromium through Playwright (no browser download, ever).
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "installing chromium"; \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "chromium is missing: install it (Debian/Ubuntu: sudo apt-get install chromium)"; exit 1; \
		fi; \
	fi

$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# The CPU build of torch first, so nothing below pulls a CUDA build.
	$(PY) -m pip install -q "torch==2.13.0"
	# The client from this checkout (never from a package index: the name is ours only here).
	$(PY) -m pip install -q -e "clients/python[mcp,langgraph,langchain]"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

# The TypeScript client's devDependencies (tsc, openapi-typescript), from its lock file; offline after the first time.
$(NODE_STAMP): clients/typescript/package-lock.json
	cd clients/typescript && npm ci --no-audit --no-fund --prefer-offline
	touch $(NODE_STAMP)

setup: system-deps $(STAMP) $(NODE_STAMP)

run: setup
	$(PY) manage.py serve

test: setup
	$(PY) manage.py services
	$(PY) -m pytest $(PYTEST_ARGS)

# The inner loop: everything except the browser, the real Celery worker, fuzzing and the live-server suites
# (Node client, doc snippets, MCP, hooks, probe). `make test` still runs everything.
FAST_MARKERS := not browser and not celery_worker and not fuzz and not live_server
test-fast: setup
	$(PY) manage.py services
	$(PY) -m pytest -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

bench: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) bench_foundation.py
	$(PY) benchmarks/update_readme.py

# LoCoMo evidence recall through the API, with baselines and ablations (about 30 minutes on 2 cores).
eval: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) eval_locomo.py --modes full,keyword,semantic,recent --output locomo
	cd benchmarks && ../$(PY) eval_locomo.py --database memoryhub_eval2 --budgets 512,1024,2048 \
		--modes full,full-no-rerank,full-no-temporal,full-no-graph,full-no-subject,full+coverage,semantic+keyword,graph,temporal \
		--output locomo-ablations
	cd benchmarks && ../$(PY) eval_locomo.py --database memoryhub_eval3 --budgets 256,1024 \
		--modes full,full+graph-all-kinds,full-no-graph,full+hop,full+feedback,full+coverage,full+feedback+hop,full+all,full+fetch,full+neighbour,full+fetch+neighbour,keyword,semantic \
		--held-out full,full+graph-all-kinds,full+hop,full+feedback,full+coverage,full+feedback+hop,full+all,full+fetch,full+neighbour,full+fetch+neighbour \
		--output locomo-dev
	$(PY) benchmarks/update_readme.py

# Consolidation of a 5,000-alert stream: compression, tokens per answer, throughput, citation integrity (minutes).
bench-consolidation: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) bench_consolidation.py
	$(PY) benchmarks/update_readme.py

# Dashboard pages: server time with 10,000 beliefs and 1,000 pending review items (about 2 minutes).
bench-web: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) bench_web.py
	$(PY) benchmarks/update_readme.py

# Memory Defense precision and recall per kind on the labelled corpus (seconds).
eval-defense: setup
	cd benchmarks && ../$(PY) eval_defense.py
	$(PY) benchmarks/update_readme.py

# Memory Defense CPU cost of this checkout against a git revision, timed paired (about 2 minutes): make defense-cost BASE=<rev>
defense-cost: setup
	$(PY) benchmarks/defense_cost_paired.py --base $(BASE)

# Anomaly and churn simulators and tokens per task (about 10 minutes on 2 cores).
eval-workloads: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) eval_workloads.py
	$(PY) benchmarks/update_readme.py

# Recall at 100,000 episodes (minutes) and 1,000,000 episodes (about an hour: bulk load and HNSW build).
bench-scale: setup
	$(PY) manage.py services
	cd benchmarks && ../$(PY) bench_scale.py --size 100000
	cd benchmarks && ../$(PY) bench_scale.py --size 100000 --vectors real
	cd benchmarks && ../$(PY) bench_scale.py --size 1000000 --queries 100
	cd benchmarks && ../$(PY) bench_scale.py --size 1000000 --queries 100 --vectors real
	$(PY) benchmarks/update_readme.py

# Fault injection: worker SIGKILLs, Redis crash, PostgreSQL restart, double delivery under 1,000 retains (minutes).
chaos: setup
	cd benchmarks && ../$(PY) chaos.py
	$(PY) benchmarks/update_readme.py

# Agent load on loopback: 40 agents over 5 banks of 10,000 episodes for 10 minutes, plus a step sweep for the knee
# (about 20 minutes; sweep steps of 30 s). LOAD_ARGS="--banks 2 --episodes 2000 --minutes 1 --step-seconds 20" for a quick run.
load: setup
	$(PY) -m pip install -q "locust>=2.30,<3"
	cd benchmarks && ../$(PY) load/run_load.py $(LOAD_ARGS)
	$(PY) benchmarks/update_readme.py

# CPU per request of each load-run call, one at a time (web, PostgreSQL, background), on the load run's banks
# (about 5 minutes with ROUTE_COST_ARGS=--reuse after a load run, 8 seeding afresh).
route-cost: setup
	$(PY) benchmarks/load/route_cost.py $(ROUTE_COST_ARGS)

# The semantic channel's ways of reading a bank (exact, shared HNSW walk, the bank's own IVFFlat lists) timed and
# checked against exact search on the load run's banks (a minute or two after `make load`).
semantic-paths: setup
	$(PY) benchmarks/load/semantic_paths.py $(SEMANTIC_PATHS_ARGS)

# Schema fuzzing at full size: schemathesis over /api/schema/, every operation (about 10 minutes on 2 cores).
fuzz: setup
	$(PY) manage.py services
	MEMORYHUB_FUZZ_EXAMPLES=$${MEMORYHUB_FUZZ_EXAMPLES:-400} MEMORYHUB_FUZZ_REPORT=benchmarks/results/fuzz.json \
		$(PY) -m pytest -q -p no:cacheprovider tests/fuzz

# Regenerate the Python and TypeScript clients' types from the API schema (a test fails when they are stale).
client-models: setup
	$(PY) manage.py spectacular --format openapi-json --file .data/openapi.json
	$(PY) clients/python/memoryhub_client/_codegen.py .data/openapi.json > .data/models.py
	mv .data/models.py clients/python/memoryhub_client/models.py
	cd clients/typescript && node scripts/generate-schema.mjs ../../.data/openapi.json

# The documentation site (docs/ + mkdocs.yml) into .data/site; works offline. Broken links fail the build.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "open .data/site/index.html"

lint: setup
	$(VENV)/bin/ruff check .

stop:
	@test -x $(PY) && $(PY) -m memoryhub.devservers stop || echo "nothing to stop"

clean: stop
	rm -rf .data
