"""The page and its API under ADMIN_APP_URL's path (`/admin`): `GET /admin/` the page,
`GET /admin/admin.js` its script, `/admin/api/...` the API. They sit beside the webhook's route,
`/healthz` and `/metrics` on the bot's own server; the reverse proxy passes this path too."""

from __future__ import annotations

from aiohttp import web

from bot.telegram.admin_app.desk import AdminDesk
from bot.telegram.admin_app.documents import DocumentsApi
from bot.telegram.admin_app.page import CONTENT_SECURITY_POLICY, PageFiles
from bot.telegram.admin_app.people import PeopleApi
from bot.telegram.admin_app.reports import ReportsApi
from bot.telegram.admin_app.sources import SourcesApi

_PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def admin_app_routes(
    path: str, desk: AdminDesk, page: PageFiles | None = None
) -> list[web.RouteDef]:
    """Every route of the Mini App under `path` (with its leading slash, no trailing one), its
    API working with `desk`."""
    page = page or PageFiles.load()
    documents = DocumentsApi(desk)
    people = PeopleApi(desk)
    reports = ReportsApi(desk)
    sources = SourcesApi(desk)

    async def html(_: web.Request) -> web.Response:
        return web.Response(
            body=page.html, content_type="text/html", charset="utf-8", headers=_PAGE_HEADERS
        )

    async def script(_: web.Request) -> web.Response:
        return web.Response(
            body=page.script,
            content_type="text/javascript",
            charset="utf-8",
            headers=_PAGE_HEADERS,
        )

    async def to_page(_: web.Request) -> web.StreamResponse:
        raise web.HTTPPermanentRedirect(f"{path}/")

    api_path = f"{path}/api"
    return [
        web.get(path, to_page),
        web.get(f"{path}/", html),
        web.get(f"{path}/admin.js", script),
        web.get(f"{api_path}/me", people.me),
        web.get(f"{api_path}/documents", documents.documents),
        web.get(f"{api_path}/trash", documents.trash),
        web.get(f"{api_path}/users", people.users),
        web.get(f"{api_path}/requests", people.waiting),
        web.get(f"{api_path}/scopes", reports.scopes),
        web.get(f"{api_path}/audit", reports.audit),
        web.get(f"{api_path}/feedback", reports.feedback),
        web.get(f"{api_path}/usage", reports.usage),
        web.get(f"{api_path}/sources", sources.sources),
        web.post(f"{api_path}/move", documents.move),
        web.post(f"{api_path}/trash", documents.delete),
        web.post(f"{api_path}/restore", documents.restore),
        web.post(f"{api_path}/revoke", people.revoke),
        web.post(f"{api_path}/allow", people.allow),
        web.post(f"{api_path}/requests", people.answer),
        web.post(f"{api_path}/upload", documents.upload),
        web.post(f"{api_path}/sources/confirm", sources.confirm),
    ]
