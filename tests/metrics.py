"""Reading ``GET /_cms/metrics`` in tests: the samples of one scrape, keyed by name and labels."""

from __future__ import annotations

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

METRICS = "/_cms/metrics"
TOKEN = "test-metrics-token-0123456789"

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def scrape(client: Client | None = None) -> Samples:
    response = (client or Client()).get(METRICS, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    return parse(response.content.decode())


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 for a series not recorded yet (a counter that has not moved)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
