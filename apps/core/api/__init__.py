"""REST plumbing shared by every app: the base view, the envelope, errors, OpenAPI generation."""
