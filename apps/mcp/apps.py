from django.apps import AppConfig


class McpConfig(AppConfig):
    name = "apps.mcp"
    label = "mcp"
    verbose_name = "MCP tool server"

    def ready(self) -> None:
        from apps.mcp import registry

        # Each domain keeps its tools beside its services (apps/<domain>/tools.py); importing the module registers them.
        registry.discover()
