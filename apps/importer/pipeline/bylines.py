"""The bylines of imported items: each WordPress login becomes one byline, linked to a user of the CMS when
``authorMappings`` names one or the author's email is a user's, a guest byline otherwise."""

from __future__ import annotations

from apps.accounts.models import User
from apps.content import services as content_services
from apps.content.models import Byline
from apps.core.slugs import slugify
from apps.importer.items import Author
from apps.importer.pipeline.state import RunState


class Bylines:
    def __init__(self, state: RunState) -> None:
        self.state = state

    def of(self, login: str) -> tuple[str, User | None]:
        """The byline id of a login, and the user it stands for if any."""
        state = self.state
        if login in state.bylines:
            return state.bylines[login]
        record = state.get("byline", login)
        byline = Byline.objects.filter(pk=record.target_id).first() if record else None
        author = state.authors.get(login)
        user = self._mapped_user(login, author)
        if byline is None:
            if user is not None:
                byline = Byline.objects.filter(user=user).order_by("created_at").first()
                if byline is None:
                    byline = content_services.byline_create(
                        actor=state.system,
                        display_name=user.name or (author.display_name if author else "") or login,
                        user=user,
                        email=user.email,
                        slug=self._slug(login, author),
                    )
                    state.counters["bylines"] += 1
            else:
                byline = content_services.byline_create(
                    actor=state.system,
                    display_name=(author.display_name if author else "") or login,
                    is_guest=True,
                    email=(author.email if author else "") or "",
                    slug=self._slug(login, author),
                )
                state.counters["bylines"] += 1
            state.put("byline", login, target_id=byline.pk)
        state.bylines[login] = (byline.pk, user if user is not None else byline.user)
        return state.bylines[login]

    def _slug(self, login: str, author: Author | None) -> str:
        """A declared author's byline gets the login as its slug; an author the export does not declare (a post's
        creator or co-author only) never takes the slug a declared author's login would get, even when its posts come
        first: it gets the next ``-2``, ``-3`` … that no declared login and no byline has."""
        base = slugify(login)
        if author is not None or not base:
            return login
        reserved = {slugify(name) for name in self.state.authors}
        candidate, number = base, 2
        while candidate in reserved or Byline.objects.filter(slug=candidate).exists():
            candidate, number = f"{base}-{number}", number + 1
        return candidate

    def _mapped_user(self, login: str, author: Author | None) -> User | None:
        state = self.state
        wanted = (state.options.get("authorMappings") or {}).get(login)
        if wanted:
            user = User.objects.filter(pk=wanted).first() or User.objects.filter(email__iexact=wanted).first()
            if user is not None:
                return user
            state.warn(
                "UNKNOWN_USER", f"authorMappings names '{wanted}' for '{login}', but no such user exists."
            )
        if author and author.email:
            return User.objects.filter(email__iexact=author.email).first()
        return None
