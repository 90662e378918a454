from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "apps.media"
    label = "media"
    verbose_name = "Media"

    def ready(self) -> None:
        from apps.accounts import permissions
        from apps.accounts.models import Role
        from apps.core import readiness
        from apps.media.storage import storage_readiness

        Rule = permissions.Rule
        permissions.register(
            {
                "media.read": Rule("media:read", Role.SUBSCRIBER),
                # Uploading needs the author role (as in WordPress, contributors do not upload); changing or deleting
                # someone else's media needs editor.
                "media.create": Rule("media:write", Role.AUTHOR),
                "media.update": Rule("media:write", Role.AUTHOR, any_role=Role.EDITOR),
                "media.delete": Rule("media:write", Role.AUTHOR, any_role=Role.EDITOR),
                # Renditions are as public as the media files they come from (GET /media/file/:key is "public").
                "media.render": Rule(scope=None, public=True),
                # Minting a signed rendition URL (which anyone may then fetch): whoever may read media. Each URL is
                # one API call under the rate limit, which is what keeps variants few.
                "media.rendition_url": Rule("media:read", Role.SUBSCRIBER),
            }
        )
        readiness.register("mediaStorage", storage_readiness("default", "media"))
