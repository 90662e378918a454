"""Where the shared public test data lives (see its SOURCES.md): ``$CMS_TESTDATA_DIR``, else ``../shared/testdata``
beside the repository. A missing directory stops the test run (tests/conftest.py) rather than letting tests that
parametrize over its files silently collect nothing."""

import os
from pathlib import Path

TESTDATA = Path(
    os.environ.get("CMS_TESTDATA_DIR") or Path(__file__).resolve().parents[1].parent / "shared" / "testdata"
)
