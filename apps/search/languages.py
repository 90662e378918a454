"""Which language's rules (stemming, stop words) index the text of each locale, on PostgreSQL.

``CMS_SEARCH_LANGUAGES`` (setting, or the environment as ``en:english,pt-BR:portuguese``) maps locales to
PostgreSQL text search configurations; a locale not listed there uses the configuration named after its language
(the part before ``-`` or ``_``) when PostgreSQL has a stemmer for it, and otherwise ``simple`` (words lowercased and
unaccented, not stemmed). Changing the mapping changes every document's signature, so ``manage.py reindex`` rewrites
them. SQLite stems every locale with the Porter (English) stemmer.
"""

from __future__ import annotations

from django.conf import settings

# ISO 639-1 codes of the languages PostgreSQL 15 ships Snowball stemmers for.
STEMMERS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}


def language_for(locale: str) -> str:
    configured = getattr(settings, "CMS_SEARCH_LANGUAGES", None) or {}
    if locale in configured:
        return configured[locale]
    base = locale.replace("_", "-").split("-")[0].lower()
    return STEMMERS.get(base, "simple")
