"""The Mini App's sources tab: the sources as `/sources` shows them, within the admin's folders,
no credential or address anywhere, and the confirmation of a held-back mass deletion (only when
the page says it was confirmed, written to the audit log as the admin's), in a browser too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.telegram.texts.admin_app import RUSSIAN_APP
from tests.bot.admin_app_support import App
from tests.bot.test_admin_app import _browser_missing, _chromium
from tests.fakes.mirrored_sources import (
    OTHER_ADMIN,
    SECRET,
    Passes,
    Remotes,
    source_settings,
    sources_of,
    stocked_remotes,
)

Open = Callable[..., Any]


@pytest.fixture
def remotes() -> Remotes:
    return stocked_remotes()


@pytest.fixture
def open_sources_app(
    open_app: Open, remotes: Remotes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Open:
    """The Mini App over a bot with the two sources; the passes at start done."""
    defaults = source_settings(remotes, tmp_path, monkeypatch)

    @asynccontextmanager
    async def start(**settings: Any) -> AsyncIterator[App]:
        async with open_app(**(defaults | settings)) as app:
            await sources_of(app.harness).started()
            yield app

    return start


async def hold_back_a_third(app: App, remotes: Remotes) -> None:
    for index in range(3):
        remotes.made["nextcloud"].remove(f"f{index}.txt")
    outcome = await sources_of(app.harness).sync("nextcloud")
    assert outcome is not None and outcome.asked


class TestTheTab:
    async def test_the_sources_as_sources_shows_them_without_a_secret(
        self, open_sources_app: Open, remotes: Remotes
    ) -> None:
        async with open_sources_app() as app:
            await hold_back_a_third(app, remotes)
            status, body = await app.get("sources", lang="en")
        assert status == 200
        names = [s["name"] for s in body["sources"]]
        assert names == ["nextcloud", "contracts"]
        nextcloud = body["sources"][0]
        assert (nextcloud["kind"], nextcloud["folder"], nextcloud["every_s"]) == (
            "webdav",
            "nextcloud",
            900,
        )
        assert nextcloud["lines"][0] == "nextcloud (webdav) → nextcloud/, every 15 minutes"
        assert nextcloud["last"]["removed"] == 0 and nextcloud["last"]["ok"] is False
        assert (nextcloud["pending"]["count"], nextcloud["pending"]["total"]) == (3, 10)
        shown = json.dumps(body, ensure_ascii=False)
        for secret in (SECRET, "AKIA-not-shown", "cloud.example.com", "alice", "s3.example.com"):
            assert secret not in shown

    async def test_a_scoped_admin_sees_and_confirms_only_their_sources(
        self, open_sources_app: Open, remotes: Remotes, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{OTHER_ADMIN} = ["contracts"]\n', encoding="utf-8")
        async with open_sources_app(scopes_file=scopes) as app:
            await hold_back_a_third(app, remotes)
            _, body = await app.get("sources", user_id=OTHER_ADMIN)
            assert [s["name"] for s in body["sources"]] == ["contracts"]
            token = (await sources_of(app.harness).status("nextcloud")).pending
            assert token is not None
            status, refused = await app.post(
                "sources/confirm",
                {"name": "nextcloud", "token": token.token, "confirmed": True},
                user_id=OTHER_ADMIN,
            )
            assert status == 404 and "error" in refused
            assert (await sources_of(app.harness).status("nextcloud")).pending == token

    async def test_a_confirmation_must_say_so_and_is_audited(
        self, open_sources_app: Open, remotes: Remotes, sandbox_dir: Path
    ) -> None:
        async with open_sources_app() as app:
            await hold_back_a_third(app, remotes)
            _, body = await app.get("sources")
            token = body["sources"][0]["pending"]["token"]
            status, _ = await app.post("sources/confirm", {"name": "nextcloud", "token": token})
            assert status == 400
            status, stale = await app.post(
                "sources/confirm", {"name": "nextcloud", "token": "0" * 16, "confirmed": True}
            )
            assert (status, stale["result"]) == (200, "stale")
            passes = Passes(sources_of(app.harness))
            status, done = await app.post(
                "sources/confirm", {"name": "nextcloud", "token": token, "confirmed": True}
            )
            assert (status, done["result"]) == (200, "confirmed")
            await passes.next()
            assert not (sandbox_dir / "nextcloud" / "f0.txt").exists()
            _, audit = await app.get("audit")
        confirmed = [e for e in audit["entries"] if e["action"] == "confirm"]
        assert [(e["subject"], e["detail"]) for e in confirmed] == [
            ("nextcloud", "source nextcloud: delete 3 of 10 files")
        ]


def _confirm_in_chromium(url: str) -> dict[str, Any]:
    """Open the page headless, go to the sources tab, press the held-back deletion's button
    and accept the dialog (blocking)."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415  (only where a browser is installed)
    from selenium.webdriver.support import expected_conditions  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    driver = _chromium()
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        tab = (By.CSS_SELECTOR, 'nav button[data-tab="sources"]')
        wait.until(expected_conditions.element_to_be_clickable(tab)).click()
        row = (By.CSS_SELECTOR, '.row[data-source="nextcloud"]')
        shown = wait.until(expected_conditions.presence_of_element_located(row)).text
        driver.find_element(*row).find_element(By.TAG_NAME, "button").click()
        wait.until(expected_conditions.alert_is_present())
        question = driver.switch_to.alert.text
        driver.switch_to.alert.accept()
        wait.until(lambda d: d.find_element(By.ID, "message").text)
        return {
            "shown": shown,
            "question": question,
            "said": driver.find_element(By.ID, "message").text,
        }
    finally:
        driver.quit()


class TestInABrowser:
    async def test_the_sources_tab_confirms_a_held_back_deletion(
        self, open_sources_app: Open, remotes: Remotes
    ) -> None:
        missing = _browser_missing()
        if missing is not None:
            pytest.skip(f"no browser for the Mini App page: {missing}")
        async with open_sources_app() as app:
            await hold_back_a_third(app, remotes)
            passes = Passes(sources_of(app.harness))
            init_data = app.auth().removeprefix("tma ")
            url = str(app.client.make_url("/admin/")) + "#tgWebAppData=" + quote(init_data)
            seen = await asyncio.to_thread(_confirm_in_chromium, url)
            await passes.next()
        assert "nextcloud (webdav) → nextcloud/" in seen["shown"]
        assert "3 из 10 файлов (30 %)" in seen["shown"]
        assert seen["question"] == RUSSIAN_APP["confirm_sources"].format(
            count=3, total=10, name="nextcloud"
        )
        assert seen["said"].startswith("🗑 Подтверждено")
