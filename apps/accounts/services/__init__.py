"""Every write of the accounts app, one module per credential, all re-exported here (``services.passkey_rename``).

- ``tokens``: the command-line first admin, personal access tokens (``ec_pat_``)
- ``users``: name and role changes, enabling and disabling, with the admin protections
- ``passkeys``: WebAuthn challenges, registration, sign-in, rename and removal, first-admin setup by passkey
- ``magic_links``: single-use sign-in links by mail
- ``invitations``: an admin invites someone with a role; accepting creates the user
- ``oauth_clients``: RFC 7591 dynamic client registration, device-code approval

Services take keyword-only arguments, check permission themselves (``authorize(actor, …)``) where an actor acts, and
raise ``CmsError`` subclasses; they never build responses. Mail is handed to ``apps.accounts.mail`` and leaves after
the transaction commits.
"""

from apps.accounts.services.invitations import (
    INVITATION_LIFETIME,
    invitation_accept_begin,
    invitation_accept_finish,
    invitation_accept_with_magic_link,
    invitation_check,
    invitation_create,
    invitation_url,
)
from apps.accounts.services.magic_links import (
    MAGIC_LINK_LIFETIME,
    magic_link_consume,
    magic_link_request,
    magic_link_status,
    magic_link_url,
)
from apps.accounts.services.oauth_clients import (
    DeviceRefused,
    RegistrationRefused,
    device_authorization_create,
    device_grant_decide,
    device_grant_pending,
    oauth_client_register,
)
from apps.accounts.services.passkeys import (
    CHALLENGE_LIFETIME,
    passkey_delete,
    passkey_register_begin,
    passkey_register_finish,
    passkey_rename,
    passkey_sign_in_begin,
    passkey_sign_in_finish,
    setup_begin,
    setup_finish,
    setup_is_open,
)
from apps.accounts.services.tokens import (
    LAST_USED_RESOLUTION,
    TOKEN_PREFIX,
    admin_setup,
    api_token_authenticate,
    api_token_create,
    api_token_revoke,
    hash_token,
)
from apps.accounts.services.users import user_set_active, user_update

__all__ = [
    "CHALLENGE_LIFETIME",
    "INVITATION_LIFETIME",
    "LAST_USED_RESOLUTION",
    "MAGIC_LINK_LIFETIME",
    "TOKEN_PREFIX",
    "DeviceRefused",
    "RegistrationRefused",
    "admin_setup",
    "api_token_authenticate",
    "api_token_create",
    "api_token_revoke",
    "device_authorization_create",
    "device_grant_decide",
    "device_grant_pending",
    "hash_token",
    "invitation_accept_begin",
    "invitation_accept_finish",
    "invitation_accept_with_magic_link",
    "invitation_check",
    "invitation_create",
    "invitation_url",
    "magic_link_consume",
    "magic_link_request",
    "magic_link_status",
    "magic_link_url",
    "oauth_client_register",
    "passkey_delete",
    "passkey_register_begin",
    "passkey_register_finish",
    "passkey_rename",
    "passkey_sign_in_begin",
    "passkey_sign_in_finish",
    "setup_begin",
    "setup_finish",
    "setup_is_open",
    "user_set_active",
    "user_update",
]
