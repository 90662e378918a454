"""Fixtures of the import tests: a private directory for stored uploads, the shared WXR files."""

from __future__ import annotations

import pytest

from tests.testdata import TESTDATA

WXR = TESTDATA / "wxr"
THEME_UNIT_TEST = WXR / "theme-test-data" / "themeunittestdata.wordpress.xml"
BLOCK_TEST_DATA = WXR / "theme-test-data" / "64-block-test-data.xml"
IMPORTER_DATA = WXR / "wordpress-importer" / "phpunit-data"


@pytest.fixture(autouse=True)
def import_dir(tmp_path, settings):
    path = tmp_path / "imports"
    settings.CMS_IMPORT_DIR = path
    return path
