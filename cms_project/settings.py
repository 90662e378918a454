"""Settings for the CMS, one module configured entirely from the environment.

Every variable is listed with its default in docs/operations.md. The defaults make a fresh checkout work with nothing
installed: a SQLite file and media under ``var/``, an in-process cache, and a secret key generated once into ``var/``.
Production sets ``DATABASE_URL`` (PostgreSQL), ``CMS_BASE_URL``, ``ALLOWED_HOSTS`` and usually ``REDIS_URL``.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from apps.accounts.oauth_hooks import device_grant_pre_token
from cms_project.databases import databases
from cms_project.environment import email_settings, env, env_bool, env_float, env_int, env_list, task_settings

BASE_DIR = Path(__file__).resolve().parent.parent


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
    "apps.core.admin_site.CmsAdminConfig",
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
    "oauth2_provider",
    "django_tasks",
    "django_tasks_db",
    "apps.core",
    "apps.accounts",
    "apps.media",
    "apps.schema",
    "apps.content",
    "apps.taxonomy",
    "apps.menus",
    "apps.site",
    "apps.search",
    "apps.delivery",
    "apps.plugins",
    "apps.mcp",
    "apps.importer",
    "apps.webhooks",
    "apps.studio",
    "apps.background",
]

MIDDLEWARE = [
    # First, so its timing covers every other layer; it removes itself while metrics are off (CMS_METRICS_TOKEN).
    "apps.core.middleware.MetricsMiddleware",
    "apps.core.middleware.RequestContextMiddleware",
    "apps.core.compression.CompressionMiddleware",
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
                "apps.studio.access.studio_context",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------------------

DATABASE_URL = env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cms.sqlite3'}")
# An optional streaming replica public and read-only requests read from (apps/core/replicas.py).
DATABASE_REPLICA_URL = env("DATABASE_REPLICA_URL")
# Connections go through PgBouncer in transaction mode: no server-side cursors, no prepared statements.
CMS_PGBOUNCER = env_bool("CMS_PGBOUNCER")
DATABASES = databases(
    DATABASE_URL,
    DATABASE_REPLICA_URL,
    var_dir=VAR_DIR,
    conn_max_age=env_int("CMS_DB_CONN_MAX_AGE", 600),
    pgbouncer=CMS_PGBOUNCER,
    connect_timeout=env_int("CMS_DB_CONNECT_TIMEOUT", 5),
)
# How long the health checks wait for the database's answer before calling it not ready (apps/core/readiness.py).
CMS_READINESS_DB_TIMEOUT = env_float("CMS_READINESS_DB_TIMEOUT", 2.0)
if DATABASE_REPLICA_URL:
    DATABASE_ROUTERS = ["apps.core.replicas.ReplicaRouter"]
    MIDDLEWARE.insert(
        MIDDLEWARE.index("apps.core.middleware.RequestContextMiddleware") + 1,
        "apps.core.replicas.ReplicaMiddleware",
    )
# How long a client's reads stay on the primary after its own write; above the replica's usual lag.
CMS_REPLICA_PIN_SECONDS = env_int("CMS_REPLICA_PIN_SECONDS", 5)
# How long reads skip a replica that failed to connect (each process tries again after it).
CMS_REPLICA_RETRY_SECONDS = env_float("CMS_REPLICA_RETRY_SECONDS", 10.0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (rate-limit counters) ------------------------------------------------------------------------------------

CACHE_URL = env("CACHE_URL") or env("REDIS_URL")
if CACHE_URL and urlsplit(CACHE_URL).scheme in {"redis", "rediss", "unix"}:
    CACHES = {
        "default": {
            # Django's RedisCache behind a circuit breaker (apps/core/cache.py): a hung or stopped Redis costs one
            # short timeout per CMS_REDIS_BREAKER_SECONDS, not one per request; meanwhile reads miss and writes are
            # skipped, so rate limiting fails open.
            "BACKEND": "apps.core.cache.BreakerRedisCache",
            "LOCATION": CACHE_URL,
            # Seconds. Redis answers in well under a millisecond on a healthy network: tens of milliseconds is a fault.
            "OPTIONS": {
                "socket_connect_timeout": env_float("CMS_REDIS_CONNECT_TIMEOUT", 0.05),
                "socket_timeout": env_float("CMS_REDIS_TIMEOUT", 0.05),
            },
            "KEY_PREFIX": env("CMS_CACHE_PREFIX", "cms"),
        }
    }
else:
    # Single-machine default: counters live in each process, so with N gunicorn workers a client may get up to N times
    # the configured rate. docs/operations.md says so and how to share them (REDIS_URL).
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cms"}}

# How long the cache skips Redis after a failure (one warning per such interval, apps/core/cache.py).
CMS_REDIS_BREAKER_SECONDS = env_float("CMS_REDIS_BREAKER_SECONDS", 30.0)

# --- Authentication -------------------------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
# Our sign-in page (passkey or magic link); the Django admin's own login form redirects there too.
LOGIN_URL = "/_cms/admin/login"
LOGIN_REDIRECT_URL = "/_cms/admin/"
_https = _base.scheme == "https"
SESSION_COOKIE_SECURE = _https
CSRF_COOKIE_SECURE = _https
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = env_int("CMS_SESSION_AGE", 14 * 24 * 3600)
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "apps.core.api.exceptions.csrf_failure"
SECURE_REFERRER_POLICY = "same-origin"
# HSTS (RFC 6797): once a browser has seen it over https, it uses only https for this host for that many seconds.
# A year by default when CMS_BASE_URL is https; 0 turns it off. Django's SecurityMiddleware sends it on https requests
# only (behind a TLS proxy, with CMS_BEHIND_TLS_PROXY).
CMS_HSTS_SECONDS = max(0, env_int("CMS_HSTS_SECONDS", 365 * 24 * 3600 if _https else 0))
SECURE_HSTS_SECONDS = CMS_HSTS_SECONDS
if env_bool("CMS_BEHIND_TLS_PROXY"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Passkeys (WebAuthn): the relying party id is the host of CMS_BASE_URL and the only accepted origin is its origin,
# both read from settings.CMS_BASE_URL at request time (apps/accounts/webauthn_ceremony.py).
CMS_SITE_NAME = env("CMS_SITE_NAME", "CMS")
CMS_MAX_PASSKEYS_PER_USER = 10

# --- OAuth 2.1 authorization server (django-oauth-toolkit) ----------------------------------------------------------
# What the toolkit does not do the way OAuth 2.1 and RFC 9700 ask is in apps/accounts/oauth.py: hashed authorization
# and device codes (the two swapped models below), S256-only PKCE, single-use codes whose replay revokes what they
# issued, a 90-day absolute refresh-token lifetime, scopes capped by client and role, RFC 8707 resources limited to
# this service. Access and refresh tokens are stored as SHA-256 only (COMPLIANT_BCP_RFC9700_TOKEN_STORAGE).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"  # noqa: S105 (a model name)
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"  # noqa: S105 (a model name)
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"  # noqa: S105 (a model name)
OAUTH2_PROVIDER_GRANT_MODEL = "accounts.OAuthGrant"
OAUTH2_PROVIDER_DEVICE_GRANT_MODEL = "accounts.OAuthDeviceGrant"
OAUTH2_PROVIDER = {
    "SCOPES": {
        "content:read": "Read content: list, get, compare and search entries; list taxonomy terms and menus",
        "content:write": "Create, change, publish, schedule, delete and restore content; create taxonomy terms",
        "media:read": "List and view media",
        "media:write": "Change and delete media metadata",
        "schema:read": "List collections and read their schemas",
        "schema:write": "Create and delete collections and fields",
        "admin": "Full access to every operation your role allows",
    },
    "DEFAULT_SCOPES": ["__all__"],
    "OAUTH2_VALIDATOR_CLASS": "apps.accounts.oauth.CmsOAuth2Validator",
    "OAUTH2_SERVER_CLASS": "apps.accounts.oauth.CmsOAuth2Server",
    "OAUTH_PRE_TOKEN_VALIDATION": [device_grant_pre_token],
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 10 * 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 60 * 60,
    # The toolkit's refresh expiry is idle time after the last access token; the absolute 90 days from the first
    # grant is enforced by the validator (OAuthTokenFamily).
    "REFRESH_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "DEVICE_FLOW_INTERVAL": 5,
    "ALLOWED_REDIRECT_URI_SCHEMES": [
        "https",
        "http",
    ],  # http only for loopback; see oauth.validate_redirect_uris
    "REQUEST_APPROVAL_PROMPT": "force",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # The RFC 9207 `iss` parameter is added by our authorize view, from CMS_BASE_URL at request time.
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": False,
}
CMS_DEVICE_CODE_EXPIRE_SECONDS = 15 * 60
CMS_REFRESH_TOKEN_ABSOLUTE_SECONDS = 90 * 24 * 3600
# tools/list names only the tools the caller's token and role may call (default: every tool, as the spec's examples
# do; a call outside the token's scopes is refused with -32600 either way). docs/mcp.md "Least privilege".
CMS_MCP_LIST_CALLABLE_TOOLS_ONLY = env_bool("CMS_MCP_LIST_CALLABLE_TOOLS_ONLY", False)

# --- Mail -----------------------------------------------------------------------------------------------------------


globals().update(email_settings(env("EMAIL_URL")))
DEFAULT_FROM_EMAIL = env("CMS_EMAIL_FROM", f"{CMS_SITE_NAME} <cms@{_base.hostname or 'localhost'}>")

# --- REST framework and OpenAPI -------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so that 401 answers carry its `WWW-Authenticate: Bearer` challenge.
        "apps.accounts.authentication.BearerTokenAuthentication",
        # Browser sessions from the sign-in pages; DRF requires the CSRF token on unsafe methods.
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.accounts.permissions.OperationPermission"],
    "DEFAULT_RENDERER_CLASSES": ["apps.core.api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["apps.core.api.parsers.JSONParser"],
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
        "EntryStatusEnum": [("draft", "draft"), ("published", "published"), ("scheduled", "scheduled")],
        "FieldTypeEnum": "apps.schema.field_types.FIELD_TYPES",
        "WritableStatusEnum": [("draft", "draft"), ("published", "published")],
        "MenuItemTypeEnum": [("custom", "custom"), ("content", "content"), ("taxonomy", "taxonomy")],
        "SectionSourceEnum": [("user", "user"), ("import", "import")],
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
    # Draft preview tokens (docs/delivery.md), sent by front ends in the browser.
    "x-cms-preview",
)
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID", "WWW-Authenticate", "Mcp-Protocol-Version", "ETag"]
# API clients authenticate with bearer tokens, which need no cookies across origins.
CORS_ALLOW_CREDENTIALS = False
CORS_PREFLIGHT_MAX_AGE = 86400

# --- Rate limiting --------------------------------------------------------------------------------------------------

RATELIMIT_ENABLE = env_bool("CMS_RATE_LIMIT_ENABLED", True)
RATELIMIT_USE_CACHE = "default"
# A counter the cache cannot keep (Redis down, its breaker open) lets the request through instead of refusing it.
RATELIMIT_FAIL_OPEN = True
# Groups of endpoints and their limits ("count/period", period one of s, m, h, d; "off" disables the group).
CMS_RATE_LIMITS = {
    "api": env("CMS_RATE_LIMIT_API", "1200/m"),
    "auth": env("CMS_RATE_LIMIT_AUTH", "20/m"),
    # Magic links per email address (on top of "auth" per client address), so one mailbox cannot be flooded.
    "magic_link_address": env("CMS_RATE_LIMIT_MAGIC_LINK", "5/15m"),
}
# How many reverse proxies in front of us append to X-Forwarded-For; 0 trusts only the socket address.
CMS_TRUSTED_PROXY_COUNT = env_int("CMS_TRUSTED_PROXY_COUNT", 0)
SILENCED_SYSTEM_CHECKS = [
    # The in-process default cache is a deliberate single-machine choice (docs/operations.md); Django's own
    # RedisCache is what we use when REDIS_URL is set, which django-ratelimit does not list but supports.
    "django_ratelimit.E003",
    "django_ratelimit.W001",
    # Our authorize view adds the RFC 9207 `iss` parameter itself (from CMS_BASE_URL at request time).
    "oauth2_provider.W005",
    # http redirect URIs are needed for native apps' loopback callbacks (RFC 8252 §7.3); registration allows http
    # on loopback hosts only (apps/accounts/services/oauth_clients.py).
    "oauth2_provider.W008",
]

# --- Files ----------------------------------------------------------------------------------------------------------

MEDIA_ROOT = Path(env("MEDIA_ROOT", str(VAR_DIR / "media")))
# Media bytes go through Django's storage API: local disk under MEDIA_ROOT by default, S3-compatible object storage
# (AWS, MinIO, R2, …) with CMS_MEDIA_STORAGE=s3. Credentials may also come from boto3's own AWS_* variables.
CMS_MEDIA_STORAGE = env("CMS_MEDIA_STORAGE", "local")


def _s3_client_config():
    """botocore waits 60 s to connect and 60 s per read, with retries, by default: a hung storage would hold a request
    until the server kills its worker. These bound it, for the media and the import storage; apps/media answers 503
    when they expire."""
    from botocore.config import Config

    return Config(
        connect_timeout=env_float("CMS_S3_CONNECT_TIMEOUT", 2.0),
        read_timeout=env_float("CMS_S3_READ_TIMEOUT", 10.0),
        retries={"total_max_attempts": env_int("CMS_S3_MAX_ATTEMPTS", 2), "mode": "standard"},
    )


if CMS_MEDIA_STORAGE == "s3":
    _media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env("CMS_S3_BUCKET"),
            "endpoint_url": env("CMS_S3_ENDPOINT_URL"),
            "region_name": env("CMS_S3_REGION"),
            "access_key": env("CMS_S3_ACCESS_KEY_ID"),
            "secret_key": env("CMS_S3_SECRET_ACCESS_KEY"),
            "location": env("CMS_S3_PREFIX", ""),
            "custom_domain": env("CMS_S3_CUSTOM_DOMAIN"),
            # Public URLs by default (a CDN or a public bucket); signed, expiring URLs for private buckets.
            "querystring_auth": env_bool("CMS_S3_SIGNED_URLS"),
            # Keys are unique per upload; never overwrite an object that another record may name.
            "file_overwrite": False,
            "object_parameters": {"CacheControl": "public, max-age=31536000, immutable"},
            "client_config": _s3_client_config(),
        },
    }
elif CMS_MEDIA_STORAGE == "local":
    # No location: FileSystemStorage follows MEDIA_ROOT, also when tests override it.
    _media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
else:
    raise ValueError(f"CMS_MEDIA_STORAGE must be 'local' or 's3', not {CMS_MEDIA_STORAGE!r}")
# Uploaded import exports (issue 24, docs/operations.md "Running on several machines"): local disk under
# CMS_IMPORT_DIR by default, S3-compatible storage with CMS_IMPORT_STORAGE=s3 (the default when media is on S3), so
# that any node and any worker can run any import. Exports hold private data (authors' e-mail addresses, drafts):
# their objects get no public caching headers, and a media key may never name one (apps/media/storage.py).
CMS_IMPORT_STORAGE = env("CMS_IMPORT_STORAGE", CMS_MEDIA_STORAGE)
CMS_IMPORT_S3_BUCKET = env("CMS_IMPORT_S3_BUCKET", env("CMS_S3_BUCKET"))
CMS_IMPORT_S3_PREFIX = (env("CMS_IMPORT_S3_PREFIX", "_cms-imports") or "").strip("/")
if CMS_IMPORT_STORAGE == "s3":
    _import_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": CMS_IMPORT_S3_BUCKET,
            "endpoint_url": env("CMS_S3_ENDPOINT_URL"),
            "region_name": env("CMS_S3_REGION"),
            "access_key": env("CMS_S3_ACCESS_KEY_ID"),
            "secret_key": env("CMS_S3_SECRET_ACCESS_KEY"),
            "location": CMS_IMPORT_S3_PREFIX,
            # Never handed out as a URL; signed if a tool ever asks for one.
            "querystring_auth": True,
            "file_overwrite": False,
            "client_config": _s3_client_config(),
        },
    }
elif CMS_IMPORT_STORAGE == "local":
    # No location: the storage follows CMS_IMPORT_DIR, also when tests override it.
    _import_storage = {"BACKEND": "apps.importer.storage.ImportDirStorage"}
else:
    raise ValueError(f"CMS_IMPORT_STORAGE must be 'local' or 's3', not {CMS_IMPORT_STORAGE!r}")
# Media keys a client may name never reach into the import exports when both share a bucket.
_media_prefix = (env("CMS_S3_PREFIX", "") or "").strip("/")
CMS_MEDIA_RESERVED_KEY_PREFIXES = []
if (
    CMS_MEDIA_STORAGE == "s3"
    and CMS_IMPORT_STORAGE == "s3"
    and env("CMS_S3_BUCKET") == CMS_IMPORT_S3_BUCKET
    and (not _media_prefix or CMS_IMPORT_S3_PREFIX.startswith(_media_prefix + "/"))
):
    CMS_MEDIA_RESERVED_KEY_PREFIXES = [CMS_IMPORT_S3_PREFIX[len(_media_prefix) :].strip("/") + "/"]
STORAGES = {
    "default": _media_storage,
    "imports": _import_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Several app nodes or workers on different machines (docs/operations.md): the system check refuses a node-local
# import storage then, unless CMS_IMPORT_DIR is declared to be a mount every node shares.
CMS_MULTI_NODE = env_bool("CMS_MULTI_NODE")
CMS_IMPORT_DIR_SHARED = env_bool("CMS_IMPORT_DIR_SHARED")
# Largest uploaded file (413 above it), and the file types accepted, detected from the bytes (fnmatch patterns).
CMS_MAX_UPLOAD_BYTES = env_int("CMS_MAX_UPLOAD_BYTES", 50 * 1024 * 1024)
CMS_MEDIA_ALLOWED_TYPES = env_list(
    "CMS_MEDIA_ALLOWED_TYPES", ["image/*", "video/*", "audio/*", "application/pdf"]
)
# Types served with `Content-Disposition: inline` by GET /media/file/:key (fnmatch patterns); every other type is an
# attachment. Raster images, audio and video only by default: SVG, HTML, XML and PDF are documents when opened.
CMS_MEDIA_INLINE_TYPES = env_list(
    "CMS_MEDIA_INLINE_TYPES",
    [
        "image/png",
        "image/apng",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/avif",
        "image/bmp",
        "image/x-icon",
        "image/tiff",
        "image/heic",
        "audio/*",
        "video/*",
    ],
)
# Public reads (issue 22, docs/delivery.md): how long browsers (max-age) and shared caches such as CDNs (s-maxage) keep
# an anonymous answer, and how long a cache may serve it stale while it revalidates in the background (seconds).
CMS_CACHE_MAX_AGE = env_int("CMS_CACHE_MAX_AGE", 60)
CMS_CACHE_S_MAXAGE = env_int("CMS_CACHE_S_MAXAGE", 300)
CMS_CACHE_SWR = env_int("CMS_CACHE_SWR", 86400)
# Bytes of anonymous answers each worker keeps in memory to answer the same representation again without building it
# (apps/delivery/fastpath.py); 0 keeps none.
CMS_PUBLIC_ANSWERS_BYTES = env_int("CMS_PUBLIC_ANSWERS_BYTES", 16 * 1024 * 1024)
# JSON and XML answers at least this long are compressed (brotli or gzip, as the client accepts); 0 turns it off.
CMS_COMPRESS_MIN_BYTES = env_int("CMS_COMPRESS_MIN_BYTES", 1024)

# Image renditions (issue 22, docs/delivery.md): named variants anyone may fetch without a signature
# (`/media/:id/render/:preset`), and the widths media answers list in `srcset`. Each preset takes w, h, fit
# (cover|contain), format (webp|avif|jpeg|png) and q, as the signed route does. JSON in the environment replaces them.
CMS_RENDITION_PRESETS = json.loads(
    env(
        "CMS_RENDITION_PRESETS",
        json.dumps(
            {
                "thumbnail": {"w": 200, "h": 200, "fit": "cover", "format": "webp"},
                "small": {"w": 480, "format": "webp"},
                "medium": {"w": 960, "format": "webp"},
                "large": {"w": 1920, "format": "webp"},
            }
        ),
    )
)
CMS_RENDITION_WIDTHS = [
    int(width) for width in env_list("CMS_RENDITION_WIDTHS", ["320", "640", "960", "1280", "1920"])
]
# Largest width or height a rendition may ask for, and the largest source (pixels) we decode at all: anything bigger is
# refused with 422 before its pixels are read (decompression bombs).
CMS_RENDITION_MAX_DIMENSION = env_int("CMS_RENDITION_MAX_DIMENSION", 4000)
CMS_RENDITION_MAX_SOURCE_PIXELS = env_int("CMS_RENDITION_MAX_SOURCE_PIXELS", 50_000_000)
# A worker makes every preset and srcset rendition of an uploaded image ahead of its first request.
CMS_RENDITIONS_AHEAD = env_bool("CMS_RENDITIONS_AHEAD", True)
STATIC_URL = "/static/"
STATIC_ROOT = Path(env("STATIC_ROOT", str(VAR_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve admin and API-docs assets straight from the installed packages when collectstatic has not run.
WHITENOISE_USE_FINDERS = True
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("CMS_MAX_JSON_BYTES", 5 * 1024 * 1024)

# --- Plugins --------------------------------------------------------------------------------------------------------

# Dotted paths of plugin packages (a module with a `plugin` attribute, or a Plugin subclass). Each can be enabled and
# disabled at run time (/_cms/api/plugins); listing it here installs it.
CMS_PLUGINS = env_list("CMS_PLUGINS", ["apps.plugins.builtin.callout", "apps.plugins.builtin.audit"])

# --- Import (SPEC §4.10) ---------------------------------------------------------------------------------------------

# Import sources by dotted path (each module has a `source` attribute); plugins add theirs while enabled.
CMS_IMPORT_SOURCES = env_list(
    "CMS_IMPORT_SOURCES",
    [
        "apps.importer.sources.wxr_source",
        "apps.importer.sources.blogplatform_hosted",
        "apps.importer.sources.blogplatform_rest",
    ],
)
# The hosted platform's API (probe and OAuth import); tests point it at a local server.
CMS_IMPORT_HOSTED_API = env("CMS_IMPORT_HOSTED_API", "https://public-api.wordpress.com")
# Uploaded exports kept between analyze and execute, and by jobs until they finish, when the import storage is local
# (CMS_IMPORT_STORAGE above).
CMS_IMPORT_DIR = Path(env("CMS_IMPORT_DIR", str(VAR_DIR / "imports")))
# Exports up to this size import within the request; larger ones run in `manage.py worker` (202 + job id).
CMS_IMPORT_SYNC_MAX_BYTES = env_int("CMS_IMPORT_SYNC_MAX_BYTES", 5 * 1024 * 1024)
CMS_IMPORT_SYNC_MAX_ITEMS = env_int("CMS_IMPORT_SYNC_MAX_ITEMS", 500)
# How long the worker runs one import job before putting it back in the queue (other work gets its turn).
CMS_IMPORT_WORKER_SLICE_SECONDS = env_int("CMS_IMPORT_WORKER_SLICE_SECONDS", 60)
# A running job whose worker wrote nothing for this long is taken to be dead: it may be resumed.
CMS_IMPORT_LEASE_SECONDS = env_int("CMS_IMPORT_LEASE_SECONDS", 120)
# Source items committed together (with the job's cursor): a crash loses at most one batch's work, then redoes it.
CMS_IMPORT_BATCH_SIZE = env_int("CMS_IMPORT_BATCH_SIZE", 100)
# Export files at least this large are parsed and converted in a second process while the import writes (one more
# core busy, about a third less time); smaller ones are read in the importing process, which saves starting one.
CMS_IMPORT_READ_AHEAD_BYTES = env_int("CMS_IMPORT_READ_AHEAD_BYTES", 8 * 1024 * 1024)
# Seconds a media download may wait for the next bytes before it is retried (SPEC §7: retried with backoff).
CMS_IMPORT_FETCH_TIMEOUT = env_int("CMS_IMPORT_FETCH_TIMEOUT", 20)
# The media endpoint starts no download after this many seconds of its request (below gunicorn's worker timeout).
CMS_IMPORT_MEDIA_REQUEST_SECONDS = env_int("CMS_IMPORT_MEDIA_REQUEST_SECONDS", 30)
# How long URL probing waits for the sources' probes (they run in parallel).
CMS_IMPORT_PROBE_TIMEOUT = env_int("CMS_IMPORT_PROBE_TIMEOUT", 15)
CMS_IMPORT_MAX_BYTES = env_int("CMS_IMPORT_MAX_BYTES", 2 * 1024 * 1024 * 1024)
# Total bytes media may occupy: an upload or imported file that would go over it is refused with 507 (unset: no limit).
CMS_MEDIA_QUOTA_BYTES = env_int("CMS_MEDIA_QUOTA_BYTES", 0) or None

# --- Locale and time ------------------------------------------------------------------------------------------------

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# Webhooks (docs/webhooks.md). Hosts (or host:port) that endpoint URLs may name although they resolve to private or
# loopback addresses: receivers on the operator's own network. Empty: only public addresses.
CMS_WEBHOOK_ALLOWED_HOSTS = env_list("CMS_WEBHOOK_ALLOWED_HOSTS", [])
# Seconds to connect and to wait for the answer; a receiver should answer fast and work later.
CMS_WEBHOOK_TIMEOUT_SECONDS = env_int("CMS_WEBHOOK_TIMEOUT_SECONDS", 10)
CMS_WEBHOOK_MAX_ATTEMPTS = env_int("CMS_WEBHOOK_MAX_ATTEMPTS", 10)
CMS_WEBHOOK_RETRY_BASE_SECONDS = env_int("CMS_WEBHOOK_RETRY_BASE_SECONDS", 60)
CMS_WEBHOOK_RETRY_MAX_SECONDS = env_int("CMS_WEBHOOK_RETRY_MAX_SECONDS", 6 * 3600)
# An endpoint is disabled once its attempts have failed this many times in a row AND for this long.
CMS_WEBHOOK_DISABLE_AFTER_FAILURES = env_int("CMS_WEBHOOK_DISABLE_AFTER_FAILURES", 20)
CMS_WEBHOOK_DISABLE_AFTER_SECONDS = env_int("CMS_WEBHOOK_DISABLE_AFTER_SECONDS", 24 * 3600)
# A worker that has not finished a delivery after this long is taken to be dead: another sends it again.
CMS_WEBHOOK_LEASE_SECONDS = env_int("CMS_WEBHOOK_LEASE_SECONDS", 120)
CMS_WEBHOOK_BATCH_SIZE = env_int("CMS_WEBHOOK_BATCH_SIZE", 50)
# Requests a worker's pass sends at once (threads doing only the network part): a slow receiver holds up one each.
CMS_WEBHOOK_CONCURRENCY = env_int("CMS_WEBHOOK_CONCURRENCY", 8)
# How much of each answer is kept with its attempt, in bytes.
CMS_WEBHOOK_RESPONSE_EXCERPT = 1024
# Finished deliveries (and their attempts) are deleted after this many days.
CMS_WEBHOOK_RETENTION_DAYS = env_int("CMS_WEBHOOK_RETENTION_DAYS", 30)
# Retention (docs/operations.md "Retention"): audit events older than this many days are deleted by
# `manage.py cms_prune` (apps/plugins/retention.py); 0 keeps them forever. Finished background-task records follow
# CMS_TASK_RETENTION_DAYS (below, with the task engine). Rows deleted per transaction: CMS_RETENTION_BATCH_SIZE.
CMS_AUDIT_RETENTION_DAYS = env_int("CMS_AUDIT_RETENTION_DAYS", 365)
CMS_RETENTION_BATCH_SIZE = env_int("CMS_RETENTION_BATCH_SIZE", 1000)
# How long a rotated-out secret still signs beside the new one, unless the rotation says otherwise.
CMS_WEBHOOK_SECRET_GRACE_SECONDS = env_int("CMS_WEBHOOK_SECRET_GRACE_SECONDS", 24 * 3600)

CMS_DEFAULT_LOCALE = env("CMS_DEFAULT_LOCALE", "en")
CMS_LOCALES = env_list("CMS_LOCALES", [CMS_DEFAULT_LOCALE])

# --- Search ---------------------------------------------------------------------------------------------------------

# Locale → PostgreSQL text search configuration, for locales whose language is not guessed right from its code
# (apps/search/languages.py); e.g. CMS_SEARCH_LANGUAGES="en:english,pt-BR:portuguese,x-klingon:simple".
CMS_SEARCH_LANGUAGES = dict(
    item.split(":", 1) for item in env_list("CMS_SEARCH_LANGUAGES", []) if ":" in item
)
# Candidates ranked for a query matching more documents than this (0: the default, 1,000), plus up to half as many
# title matches. Below it, ranking is exact. See docs/performance.md for the trade-off.
CMS_SEARCH_RANK_LIMIT = env_int("CMS_SEARCH_RANK_LIMIT", 0)
# PostgreSQL with the optional RUM index: queries expected to match more documents than this take the bounded path.
CMS_SEARCH_RUM_LIMIT = env_int("CMS_SEARCH_RUM_LIMIT", 40_000)
# A running rebuild job whose worker has not renewed its lease for this long is taken to be dead: the next worker pass
# starts it again. Renewed after each batch of 500 entries, but a full rebuild ends by building the full-text index
# in one statement, which takes minutes on a large site: the lease must outlast that.
CMS_SEARCH_REBUILD_LEASE_SECONDS = env_int("CMS_SEARCH_REBUILD_LEASE_SECONDS", 900)

# --- Delivery to front ends (docs/delivery.md) -----------------------------------------------------------------------

# How long a draft preview token works, in seconds.
CMS_PREVIEW_TOKEN_SECONDS = env_int("CMS_PREVIEW_TOKEN_SECONDS", 3600)
# URLs per sitemap file (the sitemaps.org limit); past it /sitemap.xml is an index of ?page= parts.
CMS_SITEMAP_MAX_URLS = env_int("CMS_SITEMAP_MAX_URLS", 50_000)
# Where a term lives on the front end ({taxonomy}, {slug}): menu items pointing at terms carry it as their url.
CMS_TERM_URL_PATTERN = env("CMS_TERM_URL_PATTERN", "/{taxonomy}/{slug}")

# --- The MCP tool server (docs/mcp.md) ------------------------------------------------------------------------------

# content_list's default compact answers cut each portableText value (as Markdown) to this many characters.
CMS_MCP_COMPACT_TEXT_CHARS = env_int("CMS_MCP_COMPACT_TEXT_CHARS", 200)
# tools/list also offers content_create_<collection> and content_update_<collection>, typed by each collection's schema.
CMS_MCP_COLLECTION_TOOLS = env_bool("CMS_MCP_COLLECTION_TOOLS", False)

# --- Background work (docs/operations.md "Background work") -------------------------------------------------------

# Django's Tasks API (the django-tasks backport): every piece of background work is a task on a queue. The database
# backend is the default (no extra server); CMS_TASK_BACKEND=rq keeps the queues in Redis (CMS_TASK_REDIS_URL, else
# REDIS_URL) for large deployments; a dotted class path names any other backend.
CMS_TASK_QUEUES = ["publishing", "mail", "webhooks", "imports", "renditions", "maintenance"]
_tasks = task_settings(
    env("CMS_TASK_BACKEND"),
    CMS_TASK_QUEUES,
    env("CMS_TASK_REDIS_URL") or env("REDIS_URL"),
    timeout=env_int("CMS_TASK_RQ_TIMEOUT", 3600),
)
TASKS, RQ_QUEUES, RQ = _tasks["TASKS"], _tasks["RQ_QUEUES"], _tasks["RQ"]
INSTALLED_APPS += _tasks["apps"]
# How often each worker process records that it is alive, and after how long without a word it is taken to be dead
# (its running tasks go back to their queues).
CMS_WORKER_BEAT_SECONDS = env_float("CMS_WORKER_BEAT_SECONDS", 5.0)
CMS_WORKER_DEAD_SECONDS = env_float("CMS_WORKER_DEAD_SECONDS", 60.0)
# Seconds an idle queue waits before looking for work again (scheduled publishing is due within about this long).
CMS_WORKER_POLL_SECONDS = env_float("CMS_WORKER_POLL_SECONDS", 1.0)
# Finished task records (successful or failed) are deleted after this many days; 0 keeps them.
CMS_TASK_RETENTION_DAYS = env_int("CMS_TASK_RETENTION_DAYS", 14)
# A mail the server refused or did not take is tried again this many times in all, waiting base · 2^n seconds.
CMS_MAIL_ATTEMPTS = env_int("CMS_MAIL_ATTEMPTS", 6)
CMS_MAIL_RETRY_BASE_SECONDS = env_float("CMS_MAIL_RETRY_BASE_SECONDS", 30.0)

# --- Logging --------------------------------------------------------------------------------------------------------

CMS_REQUEST_LOG = env_bool("CMS_REQUEST_LOG", True)

# --- Metrics (docs/operations.md, "Metrics, readiness and logs") ----------------------------------------------------

# Prometheus metrics at /_cms/metrics, answered only with `Authorization: Bearer <this token>`; unset: no such path.
# Under gunicorn, PROMETHEUS_MULTIPROC_DIR (set by scripts/serve.sh) lets every process's figures be scraped at once.
CMS_METRICS_TOKEN = env("CMS_METRICS_TOKEN")
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
