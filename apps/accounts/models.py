"""Users with a role number, and personal access tokens stored as SHA-256 hashes."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.db import models

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
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["created_at", "id"], name="accounts_token_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
