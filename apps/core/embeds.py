"""Embeds WordPress knows: the provider of a URL by its host, for ``embed`` blocks from HTML, Markdown and imports."""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["PROVIDERS", "provider_for_url"]

# Hosts of embeds WordPress knows (wp-includes/class-wp-oembed.php), by the provider slug WordPress uses.
PROVIDERS = {
    "youtube.com": "youtube",
    "youtu.be": "youtube",
    "vimeo.com": "vimeo",
    "twitter.com": "twitter",
    "x.com": "twitter",
    "instagram.com": "instagram",
    "facebook.com": "facebook",
    "flickr.com": "flickr",
    "flic.kr": "flickr",
    "soundcloud.com": "soundcloud",
    "spotify.com": "spotify",
    "wordpress.tv": "wordpress-tv",
    "dailymotion.com": "dailymotion",
    "tiktok.com": "tiktok",
    "ted.com": "ted",
    "slideshare.net": "slideshare",
    "speakerdeck.com": "speaker-deck",
    "reddit.com": "reddit",
    "tumblr.com": "tumblr",
    "imgur.com": "imgur",
    "issuu.com": "issuu",
    "mixcloud.com": "mixcloud",
    "scribd.com": "scribd",
    "kickstarter.com": "kickstarter",
    "animoto.com": "animoto",
    "cloudup.com": "cloudup",
    "crowdsignal.com": "crowdsignal",
    "pinterest.com": "pinterest",
    "pocketcasts.com": "pocket-casts",
    "smugmug.com": "smugmug",
    "videopress.com": "videopress",
    "wolframcloud.com": "wolfram-cloud",
    "amazon.com": "amazon-kindle",
    "bsky.app": "bluesky",
}


def provider_for_url(url: str) -> str | None:
    """The embed provider WordPress would use for a URL, or None when it is not a known one."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return None
    parts = host.split(".")
    for index in range(len(parts) - 1):
        provider = PROVIDERS.get(".".join(parts[index:]))
        if provider:
            return provider
    return None
