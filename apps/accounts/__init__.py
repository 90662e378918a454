"""Users and their roles, API tokens, and (later) passkeys, magic links, invites, sessions and OAuth glue."""
