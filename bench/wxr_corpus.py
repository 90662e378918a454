"""The realistic corpus of `make bench`: real WordPress exports replicated to any number of posts.

The published posts of the Theme Unit Test data and of the WordPress 6.4 block test data (in the shared test data,
``wxr/theme-test-data/``) are copied again and again, each copy with its own post id, slug, guid and a numbered title,
so that an import of the result holds what sites really store: Gutenberg markup of every core block, long and short
bodies (700 bytes to 43 KB of HTML, 3 KB and 7 KB on average), categories, tags, authors and featured-image
references. Half of the posts come from each export. Pages, attachments and menus are left out: the reads measured
are of posts, and attachments would make the import download files.

Each export is written to its own file (the two use different namespace URIs for ``wp:``), in a stream: memory stays
at one post whatever the count.

    python -m bench.wxr_corpus --posts 10000 --out DIR     # writes DIR/theme-unit.xml and DIR/block-test.xml
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from lxml import etree

from tests.testdata import TESTDATA

SOURCES = {
    "theme-unit": TESTDATA / "wxr" / "theme-test-data" / "themeunittestdata.wordpress.xml",
    "block-test": TESTDATA / "wxr" / "theme-test-data" / "64-block-test-data.xml",
}
# Post ids of the copies start past any id of the sources, so a copy never collides with an original's terms.
FIRST_ID = 1_000_000


def _published_posts(channel, wp: str) -> list:
    return [
        item
        for item in channel.iterfind("item")
        if item.findtext(f"{wp}post_type") == "post" and item.findtext(f"{wp}status") == "publish"
    ]


def _renumbered(item, wp: str, copy_number: int, post_id: int):
    post = copy.deepcopy(item)
    slug = post.find(f"{wp}post_name")
    base = (slug.text or "post") if slug is not None else "post"
    if slug is None:
        slug = etree.SubElement(post, f"{wp}post_name")
    slug.text = f"{base}-{copy_number}"
    post.find(f"{wp}post_id").text = str(post_id)
    title = post.find("title")
    title.text = f"{title.text or 'Untitled'} #{copy_number}"
    for tag in ("guid", "link"):
        element = post.find(tag)
        if element is not None:
            element.text = f"https://example.test/?p={post_id}"
    # A copy has no comments: the reads measured are of entries, and comments are not imported as entries.
    for comment in post.findall(f"{wp}comment"):
        post.remove(comment)
    return post


def write_replica(source: Path, target: Path, posts: int, first_id: int) -> int:
    """Write ``posts`` copies of ``source``'s published posts to ``target``; answers how many were written."""
    tree = etree.parse(str(source), etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    root = tree.getroot()
    wp = "{" + root.nsmap["wp"] + "}"
    channel = root.find("channel")
    originals = _published_posts(channel, wp)
    for item in list(channel.iterfind("item")):
        channel.remove(item)
    head, tail = etree.tostring(root, encoding="unicode").rsplit("</channel>", 1)
    written = 0
    with target.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8" ?>\n')
        out.write(head)
        while written < posts:
            copy_number, position = divmod(written, len(originals))
            post = _renumbered(originals[position], wp, copy_number + 1, first_id + written)
            out.write(etree.tostring(post, encoding="unicode"))
            out.write("\n")
            written += 1
        out.write("</channel>" + tail)
    return written


def write_corpus(out: Path, posts: int) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    share = posts // len(SOURCES)
    for position, (name, source) in enumerate(SOURCES.items()):
        count = share if position < len(SOURCES) - 1 else posts - share * (len(SOURCES) - 1)
        path = out / f"{name}.xml"
        write_replica(source, path, count, FIRST_ID + position * posts)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    for path in write_corpus(args.out, args.posts):
        print(path, f"{path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
