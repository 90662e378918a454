"""Settings for the CMS, one module configured entirely from the environment.

Every variable is listed with its default in docs/operations.md. The defaults make a fresh checkout work with nothing
installed: a SQLite file and media under ``var/``, an in-process cache, and a secret key generated once into ``var/``.
Production sets ``DATABASE_URL`` (PostgreSQL), ``CMS_BASE_URL``, ``ALLOWED_HOSTS`` and usually ``REDIS_URL``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value is None or value == "" else int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


VAR_DIR = Path(env("CMS_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """The key from the environment, else one generated once into var/ and reused by every process."""
    key = env("SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    # Write to a private temp file and link it into place: link fails if another process won the race, and then
    # both use the winner's key, never a half-written file.
    tmp = VAR_DIR / f".secret_key.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_urlsafe(50))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG")

# The public address of this service; absolute URLs (media, OAuth metadata, links in mail) are built from it.
CMS_BASE_URL = (env("CMS_BASE_URL", "http://localhost:8000") or "").rstrip("/")
_base = urlsplit(CMS_BASE_URL)
CMS_API_PREFIX = "/_cms/api"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [_base.hostname or "localhost", "localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [f"{_base.scheme}://{_base.netloc}"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_ratelimit",
    "apps.core",
    "apps.accounts",
    "apps.schema",
    "apps.content",
]

MIDDLEWARE = [
    "apps.core.middleware.RequestContextMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "cms_project.urls"
WSGI_APPLICATION = "cms_project.wsgi.application"
ASGI_APPLICATION = "cms_project.asgi.application"

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

# --- Database -------------------------------------------------------------------------------------------------------

DATABASE_URL = env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cms.sqlite3'}")
_db = dj_database_url.parse(
    DATABASE_URL,
    # Persistent connections: opening one per request costs more than most of our queries.
    conn_max_age=env_int("CMS_DB_CONN_MAX_AGE", 600),
    conn_health_checks=True,
)
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db.setdefault("OPTIONS", {}).update(
        {
            # Wait for a competing writer instead of failing at once.
            "timeout": 20,
            # BEGIN IMMEDIATE takes the write lock up front, so two transactions never deadlock upgrading a read lock.
            "transaction_mode": "IMMEDIATE",
            # WAL lets readers run beside the writer; NORMAL sync is durable across application crashes in WAL mode.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
            " PRAGMA cache_size=-20000; PRAGMA temp_store=MEMORY",
        }
    )
    # The test database is a file too (Django's default is a shared in-memory one, whose table locks fail at once
    # instead of waiting), so tests with concurrent writers see the locking production has.
    _db["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (rate-limit counters) ------------------------------------------------------------------------------------

CACHE_URL = env("CACHE_URL") or env("REDIS_URL")
if CACHE_URL and urlsplit(CACHE_URL).scheme in {"redis", "rediss", "unix"}:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            # A slow or absent Redis must not hang requests; rate limiting fails open on errors (apps/core/ratelimit.py).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
            "KEY_PREFIX": env("CMS_CACHE_PREFIX", "cms"),
        }
    }
else:
    # Single-machine default: counters live in each process, so with N gunicorn workers a client may get up to N times
    # the configured rate. docs/operations.md says so and how to share them (REDIS_URL).
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cms"}}

# --- Authentication -------------------------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/django-admin/login/"
_https = _base.scheme == "https"
SESSION_COOKIE_SECURE = _https
CSRF_COOKIE_SECURE = _https
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env_int("CMS_SESSION_AGE", 14 * 24 * 3600)
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "apps.core.api.exceptions.csrf_failure"
SECURE_REFERRER_POLICY = "same-origin"
if env_bool("CMS_BEHIND_TLS_PROXY"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- REST framework and OpenAPI -------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so that 401 answers carry its `WWW-Authenticate: Bearer` challenge.
        "apps.accounts.authentication.BearerTokenAuthentication",
        # Browser sessions from the sign-in pages; DRF requires the CSRF token on unsafe methods.
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.accounts.permissions.OperationPermission"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "apps.core.api.negotiation.LenientContentNegotiation",
    "EXCEPTION_HANDLER": "apps.core.api.exceptions.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "apps.core.api.schema.CmsAutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [],
    # `?format=` belongs to the endpoints (schema export), not to DRF's renderer override.
    "URL_FORMAT_OVERRIDE": None,
    "UNICODE_JSON": True,
    "COMPACT_JSON": True,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "CMS API",
    "DESCRIPTION": (
        "REST API of the headless CMS. Every response is an envelope: `{success: true, data}` or "
        "`{success: false, error: {code, message, details}}` (search is the one bare payload)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # 3.1 schemas are JSON Schema, so tests validate every response body against them directly.
    "OAS_VERSION": "3.1.0",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/_cms/api",
    "PREPROCESSING_HOOKS": ["apps.core.api.schema.only_api_paths"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "EntryStatusEnum": "apps.content.models.Status",
        "WritableStatusEnum": [("draft", "draft"), ("published", "published")],
    },
}

# --- CORS -----------------------------------------------------------------------------------------------------------

CORS_ALLOWED_ORIGINS = env_list("CMS_CORS_ALLOWED_ORIGINS", [])
CORS_URLS_REGEX = r"^/(_cms/api/|\.well-known/|_cms/\.well-known/).*$"
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "if-match",
    "mcp-protocol-version",
    "mcp-session-id",
    "last-event-id",
    "x-request-id",
    "x-csrftoken",
)
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID", "WWW-Authenticate", "Mcp-Protocol-Version", "ETag"]
# API clients authenticate with bearer tokens, which need no cookies across origins.
CORS_ALLOW_CREDENTIALS = False
CORS_PREFLIGHT_MAX_AGE = 86400

# --- Rate limiting --------------------------------------------------------------------------------------------------

RATELIMIT_ENABLE = env_bool("CMS_RATE_LIMIT_ENABLED", True)
RATELIMIT_USE_CACHE = "default"
# Groups of endpoints and their limits ("count/period", period one of s, m, h, d; "off" disables the group).
CMS_RATE_LIMITS = {
    "api": env("CMS_RATE_LIMIT_API", "1200/m"),
    "auth": env("CMS_RATE_LIMIT_AUTH", "20/m"),
}
# How many reverse proxies in front of us append to X-Forwarded-For; 0 trusts only the socket address.
CMS_TRUSTED_PROXY_COUNT = env_int("CMS_TRUSTED_PROXY_COUNT", 0)
SILENCED_SYSTEM_CHECKS = [
    # The in-process default cache is a deliberate single-machine choice (docs/operations.md); Django's own
    # RedisCache is what we use when REDIS_URL is set, which django-ratelimit does not list but supports.
    "django_ratelimit.E003",
    "django_ratelimit.W001",
]

# --- Files ----------------------------------------------------------------------------------------------------------

MEDIA_ROOT = Path(env("MEDIA_ROOT", str(VAR_DIR / "media")))
STATIC_URL = "/static/"
STATIC_ROOT = Path(env("STATIC_ROOT", str(VAR_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve admin and API-docs assets straight from the installed packages when collectstatic has not run.
WHITENOISE_USE_FINDERS = True
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("CMS_MAX_JSON_BYTES", 5 * 1024 * 1024)

# --- Locale and time ------------------------------------------------------------------------------------------------

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
CMS_DEFAULT_LOCALE = env("CMS_DEFAULT_LOCALE", "en")
CMS_LOCALES = env_list("CMS_LOCALES", [CMS_DEFAULT_LOCALE])

# --- Logging --------------------------------------------------------------------------------------------------------

CMS_REQUEST_LOG = env_bool("CMS_REQUEST_LOG", True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "apps.core.logging.JsonFormatter"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["stderr"], "level": env("CMS_LOG_LEVEL", "INFO")},
    "loggers": {
        # Our request logger already records every request with its id; Django's would repeat each 4xx line.
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "WARNING"},
    },
}
