"""WordPress import: sources (WXR files, WordPress sites), the block parser and converters to Portable Text.

This package starts with the database-free foundations: ``blocks`` (block grammar parser and blocks → Portable Text)
and ``sources`` (the streaming WXR reader and the PHP ``unserialize`` it needs). The pipeline that turns their output
into collections, entries, terms, menus and media builds on them.
"""
