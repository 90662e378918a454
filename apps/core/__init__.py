"""Framework layer shared by every domain app: ids, errors, the API envelope, pagination, events, rate limits."""
