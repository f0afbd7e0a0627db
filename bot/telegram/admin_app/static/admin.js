"use strict";
// The admins' Mini App. Every request carries the page's initData, which the bot checks;
// everything shown is set as text, never as markup.
(function () {
  const base = location.pathname.replace(/\/+$/, "");
  let words = {};
  let current = "documents";

  function initData() {
    const app = window.Telegram && window.Telegram.WebApp;
    if (app && app.initData) return app.initData;
    const hash = new URLSearchParams(location.hash.slice(1));
    return hash.get("tgWebAppData") || "";
  }

  async function call(path, options) {
    const opts = options || {};
    opts.headers = Object.assign({ Authorization: "tma " + initData() }, opts.headers || {});
    const response = await fetch(base + "/api/" + path, opts);
    const body = await response.json().catch(() => ({ error: String(response.status) }));
    if (!response.ok) throw new Error(body.error || String(response.status));
    return body;
  }

  function post(path, body) {
    return call(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function say(text) {
    document.getElementById("message").textContent = text || "";
  }

  function ask(question) {
    const app = window.Telegram && window.Telegram.WebApp;
    if (app && app.showConfirm && app.initData) {
      return new Promise((resolve) => app.showConfirm(question, resolve));
    }
    return Promise.resolve(window.confirm(question));
  }

  function when(unix) {
    return new Date(unix * 1000).toLocaleString();
  }

  function button(text, onClick) {
    const b = el("button", text, "act");
    b.addEventListener("click", onClick);
    return b;
  }

  async function act(work) {
    say("");
    try {
      await work();
      await show(current);
    } catch (error) {
      say(error.message);
    }
  }

  const views = {
    async documents(view) {
      const form = el("form");
      const folder = el("input");
      folder.type = "text";
      folder.name = "folder";
      folder.placeholder = words.upload_folder;
      const file = el("input");
      file.type = "file";
      file.name = "file";
      form.append(folder, file, button(words.upload, () => {}));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        act(async () => {
          const data = new FormData();
          data.append("folder", folder.value);
          data.append("file", file.files[0]);
          const saved = await call("upload", { method: "POST", body: data });
          say(words.uploaded.replace("{path}", saved.path));
        });
      });
      view.append(form);
      const { documents } = await call("documents");
      if (!documents.length) view.append(el("p", words.documents_none, "muted"));
      const folders = new Map();
      for (const doc of documents) {
        const cut = doc.path.lastIndexOf("/");
        const name = cut < 0 ? "" : doc.path.slice(0, cut);
        if (!folders.has(name)) folders.set(name, []);
        folders.get(name).push(doc);
      }
      for (const [name, docs] of folders) {
        const group = el("details");
        group.open = true;
        group.append(el("summary", (name || "/") + " (" + docs.length + ")"));
        for (const doc of docs) group.append(documentRow(doc));
        view.append(group);
      }
    },

    async trash(view) {
      const { items } = await call("trash");
      if (!items.length) view.append(el("p", words.trash_none, "muted"));
      for (const item of items) {
        const row = el("div", null, "row");
        row.dataset.path = item.path;
        row.append(el("div", item.path), el("div", when(item.deleted_at), "muted"));
        row.append(button(words.restore, () => act(() => post("restore", { id: item.id }))));
        view.append(row);
      }
    },

    async users(view) {
      const [people, { requests }] = await Promise.all([call("users"), call("requests")]);
      view.append(el("h4", words.users_waiting));
      if (!requests.length) view.append(el("p", words.waiting_none, "muted"));
      for (const waiting of requests) view.append(waitingRow(waiting));
      view.append(el("h4", words.users_admins_env));
      view.append(el("div", people.env_admins.join(", ") || "—", "muted"));
      view.append(el("h4", words.users_env));
      view.append(el("div", people.env_users.join(", ") || "—", "muted"));
      const form = el("form");
      const id = el("input");
      id.type = "text";
      id.inputMode = "numeric";
      id.placeholder = words.allow_id;
      form.append(id, button(words.allow, () => {}));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        act(async () => {
          const done = await post("allow", { user_id: id.value.trim() });
          say((done.result === "allowed" ? words.allowed : words.already).replace("{id}", id.value.trim()));
        });
      });
      view.append(form);
      view.append(el("h4", words.users_granted));
      for (const grant of people.grants) {
        const row = el("div", null, "row");
        const name = grant.name || String(grant.id);
        row.append(el("div", name + (grant.username ? " @" + grant.username : "")));
        row.append(el("div", grant.role + " · " + when(grant.granted_at), "muted"));
        row.append(button(words.revoke, async () => {
          if (!(await ask(words.confirm_revoke.replace("{name}", name)))) return;
          act(async () => {
            const done = await post("revoke", { user_id: grant.id, confirmed: true });
            say(done.text);
          });
        }));
        view.append(row);
      }
    },

    async scopes(view) {
      const { file, set } = await call("scopes");
      const shown = (folders) => (folders === null ? words.scopes_everything : folders.join(", "));
      if (!file.configured && !set.length) view.append(el("p", words.scopes_none, "muted"));
      if (file.configured) {
        view.append(el("h4", words.scopes_file));
        if ("default" in file) {
          view.append(el("div", words.scopes_default + ": " + shown(file.default), "row"));
        }
        for (const entry of file.entries) {
          view.append(el("div", entry.key + ": " + shown(entry.folders), "row"));
        }
      }
      if (set.length) view.append(el("h4", words.scopes_set));
      for (const entry of set) {
        const row = el("div", entry.place + ": " + shown(entry.folders), "row");
        row.append(el("div", entry.by + " · " + when(entry.at), "muted"));
        view.append(row);
      }
    },

    async audit(view) {
      const { entries } = await call("audit");
      if (!entries.length) view.append(el("p", words.audit_none, "muted"));
      for (const entry of entries.slice().reverse()) {
        const row = el("div", null, "row");
        row.append(el("div", entry.action + ": " + entry.subject + (entry.detail ? " → " + entry.detail : "")));
        row.append(el("div", (entry.actor || "—") + " · " + when(entry.at), "muted"));
        view.append(row);
      }
    },

    async feedback(view) {
      const { days } = await call("feedback");
      view.append(el("h4", words.feedback_days));
      const most = Math.max(1, ...days.map((d) => d.up + d.down));
      if (!days.some((d) => d.up + d.down)) view.append(el("p", words.feedback_none, "muted"));
      for (const day of days) {
        const row = el("div", null, "row");
        row.append(el("span", day.day + " "));
        const up = el("span", null, "bar up");
        up.style.width = (day.up / most) * 60 + "%";
        const down = el("span", null, "bar down");
        down.style.width = (day.down / most) * 60 + "%";
        row.append(up, down, el("span", " 👍 " + day.up + " 👎 " + day.down, "muted"));
        view.append(row);
      }
    },
  };

  function spent(item, currency) {
    const money = item.cost === null || item.cost === undefined ? "" : " · " + currency + item.cost.toFixed(2);
    return (item.estimated ? "≈" : "") + item.tokens.toLocaleString() + money;
  }

  views.usage = async function (view) {
    const usage = await call("usage");
    if (!usage.total || !usage.total.tokens) {
      view.append(el("p", words.usage_none, "muted"));
      return;
    }
    view.append(el("h4", words.usage_total + ": " + spent(usage.total, usage.currency)));
    view.append(el("h4", words.usage_days.replace("{month}", usage.month)));
    const most = Math.max(1, ...usage.days.map((d) => d.tokens));
    for (const day of usage.days) {
      const row = el("div", null, "row");
      row.dataset.day = day.day;
      row.append(el("span", day.day + " "));
      const bar = el("span", null, "bar up");
      bar.style.width = (day.tokens / most) * 60 + "%";
      row.append(bar, el("span", " " + spent(day, usage.currency), "muted"));
      view.append(row);
    }
    view.append(el("h4", words.usage_models));
    for (const model of usage.models) {
      view.append(el("div", model.model + ": " + spent(model, usage.currency), "row"));
    }
    if (usage.total.estimated) view.append(el("p", words.usage_estimated, "muted estimated"));
  };

  views.sources = async function (view) {
    const { sources, none } = await call("sources");
    if (!sources.length) view.append(el("p", none, "muted"));
    for (const source of sources) {
      const row = el("div", null, "row");
      row.dataset.source = source.name;
      const [head, ...rest] = source.lines;
      row.append(el("div", head));
      for (const line of rest) row.append(el("div", line, "muted"));
      const pending = source.pending;
      if (pending) {
        const counted = (text) => text.replace("{count}", pending.count).replace("{total}", pending.total);
        row.append(button(counted(words.sources_delete), async () => {
          if (!(await ask(counted(words.confirm_sources).replace("{name}", source.name)))) return;
          act(async () => {
            const done = await post("sources/confirm", { name: source.name, token: pending.token, confirmed: true });
            say(done.text);
          });
        }));
      }
      view.append(row);
    }
  };

  function waitingRow(waiting) {
    const row = el("div", null, "row");
    row.dataset.request = String(waiting.id);
    const name = waiting.name || String(waiting.id);
    row.append(el("div", name + (waiting.username ? " @" + waiting.username : "")));
    row.append(el("div", "ID " + waiting.id + " · " + when(waiting.requested_at) + " · " + waiting.lang, "muted"));
    const answer = (action, done) => button(words["waiting_" + action], () => {
      for (const b of row.querySelectorAll("button")) {
        b.disabled = true; // one answer per tap: a second would only be told it was answered
      }
      return act(async () => {
        try {
          await post("requests", { user_id: waiting.id, action: action });
        } catch (error) {
          await show(current); // answered elsewhere meanwhile: the list is read again
          throw error;
        }
        say(words[done].replace("{name}", name));
      });
    });
    row.append(answer("allow", "waiting_allowed"), answer("ignore", "waiting_ignored"));
    return row;
  }

  function documentRow(doc) {
    const row = el("div", null, "row");
    row.dataset.path = doc.path;
    row.append(el("div", doc.path.split("/").pop()));
    const state = words["state_" + doc.state] + (doc.error ? ": " + doc.error : "");
    row.append(el("div", state, "muted " + doc.state));
    const target = el("input");
    target.type = "text";
    target.placeholder = words.move_to;
    target.value = doc.path;
    row.append(target);
    row.append(button(words.move, () => act(() => post("move", { source: doc.path, target: target.value }))));
    row.append(button(words.trash, async () => {
      if (!(await ask(words.confirm_trash.replace("{path}", doc.path)))) return;
      act(() => post("trash", { path: doc.path, confirmed: true }));
    }));
    return row;
  }

  async function show(name) {
    current = name;
    for (const b of document.querySelectorAll("nav button")) {
      b.classList.toggle("on", b.dataset.tab === name);
    }
    const view = document.getElementById("view");
    const fresh = el("div");
    try {
      await views[name](fresh);
    } catch (error) {
      say(error.message);
    }
    view.replaceChildren(fresh);
    document.body.dataset.shown = name;
  }

  async function start() {
    const app = window.Telegram && window.Telegram.WebApp;
    if (app && app.ready) app.ready();
    let me;
    try {
      me = await call("me");
      words = me.texts;
    } catch (error) {
      say(error.message);
      document.body.dataset.shown = "refused";
      return;
    }
    document.getElementById("title").textContent = words.title;
    document.documentElement.lang = me.lang;
    const tabs = document.getElementById("tabs");
    for (const name of Object.keys(views)) {
      const b = el("button", words["tab_" + name]);
      b.dataset.tab = name;
      b.addEventListener("click", () => show(name));
      tabs.append(b);
    }
    await show("documents");
  }

  document.addEventListener("DOMContentLoaded", start);
})();
