from rest_framework.routers import SimpleRouter

from apps.accounts.api.views import ApiTokenViewSet

router = SimpleRouter(trailing_slash=False)
router.register("admin/api-tokens", ApiTokenViewSet, basename="api-token")

urlpatterns = router.urls
