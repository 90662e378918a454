"""Users with a role number; their credentials (personal access tokens, passkeys, magic links, invitations); and
the OAuth tables we add to or swap into django-oauth-toolkit. Every secret is stored as a SHA-256 digest only."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.db import models
from oauth2_provider.models import AbstractDeviceGrant, AbstractGrant
from oauth2_provider.settings import oauth2_settings

from apps.accounts.fields import HashedSecretField
from apps.core.models import TimestampedModel, UlidModel


class Role(models.IntegerChoices):
    SUBSCRIBER = 10, "subscriber"
    CONTRIBUTOR = 20, "contributor"
    AUTHOR = 30, "author"
    EDITOR = 40, "editor"
    ADMIN = 50, "admin"


def normalize_email(email: str) -> str:
    # The whole address is compared case-insensitively: people type their address in any case and expect one account.
    return email.strip().lower()


class UserManager(BaseUserManager):
    use_in_migrations = True

    def get_by_natural_key(self, email: str) -> User:
        return self.get(email=normalize_email(email))

    def create_user(
        self, email: str, name: str = "", role: int = Role.SUBSCRIBER, password: str | None = None
    ):
        user = self.model(email=normalize_email(email), name=name, role=role)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, name: str = "", password: str | None = None):
        return self.create_user(email, name=name, role=Role.ADMIN, password=password)


class User(AbstractBaseUser, TimestampedModel):
    # Unique as stored; save() and every lookup lowercase it, which makes it unique case-insensitively.
    email = models.EmailField(unique=True)
    name = models.CharField(max_length=200, blank=True)
    role = models.PositiveSmallIntegerField(choices=Role.choices, default=Role.SUBSCRIBER)
    is_active = models.BooleanField(default=True)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["name"]

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    def save(self, *args, **kwargs):
        self.email = normalize_email(self.email)
        super().save(*args, **kwargs)

    # Django admin access follows the role: admins (50) manage everything, nobody else gets in.
    @property
    def is_staff(self) -> bool:
        return self.is_active and self.role >= Role.ADMIN

    @property
    def is_superuser(self) -> bool:
        return self.is_staff

    def has_perm(self, perm: str, obj: object = None) -> bool:
        return self.is_staff

    def has_perms(self, perm_list, obj: object = None) -> bool:
        return self.is_staff

    def has_module_perms(self, app_label: str) -> bool:
        return self.is_staff

    @property
    def role_name(self) -> str:
        return Role(self.role).label if self.role in Role.values else str(self.role)


class ApiToken(UlidModel):
    """A personal access token (``ec_pat_…``). Only its SHA-256 and a display prefix are kept; see services."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16)
    scopes = models.JSONField(default=list)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "API token"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["created_at", "id"], name="accounts_token_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


# --- Passkeys and the sign-in ceremonies ----------------------------------------------------------------------------


class Passkey(UlidModel):
    """A WebAuthn credential. The public key and sign counter are what later assertions are verified against."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="passkeys")
    name = models.CharField(max_length=100)
    # base64url of the credential's raw id (WebAuthn allows up to 1023 bytes).
    credential_id = models.CharField(max_length=1400, unique=True)
    public_key = models.BinaryField()
    sign_count = models.PositiveBigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    aaguid = models.CharField(max_length=36, blank=True)
    backed_up = models.BooleanField(default=False)
    device_type = models.CharField(max_length=16, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


class ChallengePurpose(models.TextChoices):
    SIGN_IN = "sign_in", "sign in"
    REGISTER = "register", "add a passkey"
    SETUP = "setup", "create the first admin"
    INVITE = "invite", "accept an invitation"


class WebAuthnChallenge(UlidModel):
    """A challenge handed out with WebAuthn options; verifying consumes it (deleted in one statement), so an
    assertion or attestation can be used once, within five minutes, for the purpose it was issued for."""

    challenge_hash = models.CharField(max_length=64, unique=True)
    purpose = models.CharField(max_length=16, choices=ChallengePurpose.choices)
    # Registration for an existing user: only that user may complete it.
    user = models.ForeignKey(User, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    invitation = models.ForeignKey(
        "Invitation", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    # What the verify step needs and must not take from the client again: the new user's id, email and name.
    data = models.JSONField(default=dict, blank=True)
    expires_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.purpose} challenge {self.pk}"


class MagicLink(UlidModel):
    """A single-use sign-in link. Only the SHA-256 of its token is kept.

    A row without a user was asked for an address without an (active) account: it is written so that such a request
    does the same work as one for a known address, its token is never sent, and it can sign nobody in."""

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, null=True, blank=True, related_name="magic_links"
    )
    token_hash = HashedSecretField(unique=True)
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Where the person was going when they asked (a consent or device page): a path on this site, checked again
    # before the redirect. Empty: the account page.
    next_url = models.CharField(max_length=2000, blank=True, default="")

    def __str__(self) -> str:
        return f"magic link {self.pk} for {self.user or 'no account'}"


class Invitation(UlidModel):
    """An admin's invitation: single use, seven days, creates the user with ``role`` when accepted."""

    email = models.EmailField()
    role = models.PositiveSmallIntegerField(choices=Role.choices)
    token_hash = HashedSecretField(unique=True)
    invited_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations_sent"
    )
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_user = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"invitation of {self.email} as {self.role}"


class InstanceSetup(models.Model):
    """One row, written in the transaction that creates the first admin through the setup page: its primary key
    makes two concurrent setups conflict, so only one first admin can ever be created that way."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    admin = models.ForeignKey(User, on_delete=models.SET_NULL, null=True, related_name="+")
    completed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"setup completed at {self.completed_at}"


# --- OAuth 2.1 (django-oauth-toolkit) -------------------------------------------------------------------------------


class OAuthClient(models.Model):
    """What the toolkit's Application lacks: the scopes a client may ask for and its grant types (several)."""

    application = models.OneToOneField(
        oauth2_settings.APPLICATION_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="cms_client",
    )
    scopes = models.JSONField(default=list)
    grant_types = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return str(self.application)


class OAuthGrant(AbstractGrant):
    """The toolkit's authorization code, stored hashed, kept after use so a replay can be recognised and the tokens
    it issued revoked (RFC 6749 §4.1.2, RFC 9700 §4.5.3)."""

    code = HashedSecretField(unique=True)
    used_at = models.DateTimeField(null=True, blank=True)
    replayed_at = models.DateTimeField(null=True, blank=True)
    # The refresh-token family the code was exchanged for; revoked when the code is presented again.
    token_family = models.UUIDField(null=True, blank=True)

    class Meta(AbstractGrant.Meta):
        pass


class OAuthDeviceGrant(AbstractDeviceGrant):
    """The toolkit's device grant (RFC 8628) with the device code stored hashed, the resource it asked for, when
    it last polled (for ``slow_down``) and when it was exchanged (single use)."""

    device_code = HashedSecretField()
    user_code = models.CharField(max_length=100, db_index=True)
    resource = models.JSONField(default=list, blank=True)
    last_polled_at = models.DateTimeField(null=True, blank=True)
    consumed_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractDeviceGrant.Meta):
        pass


class OAuthTokenFamily(models.Model):
    """A chain of rotated refresh tokens, from the grant that started it: its absolute end of life."""

    family = models.UUIDField(primary_key=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    application = models.ForeignKey(
        oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"token family {self.family}"
