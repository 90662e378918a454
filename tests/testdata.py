"""Where the shared public test data lives: ``../shared/testdata`` beside the repository (see its SOURCES.md)."""

from pathlib import Path

TESTDATA = Path(__file__).resolve().parents[1].parent / "shared" / "testdata"
