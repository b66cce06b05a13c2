"""The web desk's Flask app: login, the pages, the forms. Data comes from :mod:`forumbot.web.data`.

Who may see what: every page but the login needs a judge's session (a cookie signed with the app's
secret, HttpOnly, SameSite=Strict); every form carries the session's CSRF token and a POST without
the right one is refused (400) before anything is read; every change is recorded with its judge in
the desk log (and, for overrides, in the override itself). A judge removed with ``forumbot judges
remove`` is logged out at his next request.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from flask import Flask, abort, flash, g, jsonify, redirect, render_template, request, session, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from engine import EngineError
from forumbot import labels
from forumbot.config import Game
from forumbot.errors import ForumbotError, LoginThrottled, UsageError
from forumbot.export import Table
from forumbot.i18n import DEFAULT_LANGUAGE, set_language, translations
from forumbot.resources import templates_dir
from forumbot.store import judges as judges_repo
from forumbot.store.db import Store
from forumbot.web import bbcode, data, diff, svg

OPEN_ENDPOINTS = frozenset({"login", "static"})
SECRET_ENV = "FORUMBOT_DESK_SECRET"
# A form's body may hold a whole post: Discuz! boards usually take 10,000 to 50,000 characters, and a
# Chinese character is 9 bytes once URL-encoded, so 1 MiB leaves room for the longest post a board takes.
MAX_FORM_BYTES = 1024 * 1024
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _anchor(message_id: str) -> str:
    """A message id (``pid:53``, ``pm:7``) as an HTML anchor (``pid-53``)."""
    return message_id.replace(":", "-")


def create_app(game: Game, store: Store, *, lang: str = DEFAULT_LANGUAGE, secret: str | None = None) -> Flask:
    """The desk for one game over one store. ``secret`` signs the session cookies: give the same one
    (or set FORUMBOT_DESK_SECRET) to several desks of a team so a login works on each; without one a
    random secret is drawn and every login ends when the desk stops."""
    if game.signup is not None and not game.roster:  # the players are the confirmed sign-up's
        from forumbot.desk.roster import with_signup_roster

        game = with_signup_roster(game, store)
    folder = templates_dir() / "web"
    app = Flask(
        __name__, template_folder=str(folder), static_folder=str(folder / "static"), static_url_path="/static"
    )
    app.config.update(
        SECRET_KEY=secret or os.environ.get(SECRET_ENV) or secrets.token_hex(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="forumbot_desk",
        MAX_CONTENT_LENGTH=MAX_FORM_BYTES,
    )
    set_language(lang)  # the data adapter's labels and the templates speak the same language
    tr = translations(lang)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_gettext_callables(tr.gettext, tr.ngettext, newstyle=True)  # type: ignore[attr-defined]
    app.jinja_env.globals.update(lang=lang, game=game, status_labels=labels.STATUS_LABELS)
    app.extensions["forumbot"] = (game, store)
    gettext: Callable[[str], str] = tr.gettext

    def _csrf_token() -> str:
        tok = session.get("csrf")
        if not isinstance(tok, str):
            tok = secrets.token_urlsafe(32)
            session["csrf"] = tok
        return tok

    app.jinja_env.globals["csrf_token"] = _csrf_token
    # what a form that changes the secret state carries back (a stale page is refused: StaleChange)
    app.jinja_env.globals["current_state_version"] = lambda: data.state_version(game, store)

    def _known_day(n: int) -> None:
        if n not in {d.day for d in game.days}:
            abort(404, description=gettext("Day {n} is not in this game.").format(n=n))

    def _known_night(n: int) -> None:
        """Night n follows day n-1: night 1 always exists, and one night after the last day."""
        if not 1 <= n <= max((d.day for d in game.days), default=0) + 1:
            abort(404, description=gettext("Night {n} is not in this game.").format(n=n))

    app.jinja_env.filters["anchor"] = _anchor
    # How often an open page asks /changes whether to refresh (FORUMBOT_DESK_POLL_SECONDS; 0: never).
    app.config.setdefault(
        "DESK_POLL_MS", int(float(os.environ.get("FORUMBOT_DESK_POLL_SECONDS", "10")) * 1000)
    )

    def _page_url() -> str:
        """Where the page's fresh copy is: itself for a GET, its day or night page after a refused form
        (a reload would post the form again)."""
        own = g.get("page_url")
        if isinstance(own, str):
            return own
        return request.full_path.rstrip("?") if request.method == "GET" else url_for("index")

    app.jinja_env.globals["page_url"] = _page_url

    @app.before_request
    def guard() -> Response | None:
        if request.method == "POST":
            sent = request.form.get("csrf", "")
            good = session.get("csrf")
            if not isinstance(good, str) or not hmac.compare_digest(sent.encode(), good.encode()):
                abort(
                    400,
                    description=gettext(
                        "The form has expired or did not come from this desk: reload the page and try again."
                    ),
                )
        if request.endpoint in OPEN_ENDPOINTS:
            return None
        who = session.get("judge")
        if not isinstance(who, str) or not judges_repo.is_active(store, who):
            session.pop("judge", None)
            return redirect(url_for("login", next=request.full_path if request.method == "GET" else None))
        g.judge = who
        if request.endpoint != "changes":  # what the page is drawn from: its script asks /changes later
            g.stamp = data.changes(game, store).stamp
        return None

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; frame-ancestors 'none'; form-action 'self'"
        )
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.errorhandler(ForumbotError)
    @app.errorhandler(EngineError)
    def refused(exc: Exception) -> tuple[str, int]:
        return render_template("error.html", message=str(exc)), 400

    @app.errorhandler(400)
    def bad_request(exc: Any) -> tuple[str, int]:
        return render_template("error.html", message=getattr(exc, "description", str(exc))), 400

    # Werkzeug's own pages are English and say nothing a judge can act on: each answer in the desk's
    # language, inside the desk's frame. A 404's description is ours when a route set one.
    @app.errorhandler(404)
    def not_found(exc: Any) -> tuple[str, int]:
        description = getattr(exc, "description", "")
        own = isinstance(description, str) and description and not description.startswith("The requested")
        message = description if own else gettext("There is no such page on this desk.")
        return render_template("error.html", title=gettext("Not found"), message=message), 404

    @app.errorhandler(405)
    def wrong_method(exc: Any) -> tuple[str, int]:
        message = gettext(
            "This address does not take that kind of request: use the desk's own links and forms."
        )
        return render_template("error.html", title=gettext("Refused"), message=message), 405

    @app.errorhandler(413)
    def too_large(exc: Any) -> tuple[str, int]:
        message = gettext(
            "What was sent is larger than the desk takes ({limit}); nothing was changed."
        ).format(limit=f"{MAX_FORM_BYTES // 1024} KiB")
        return render_template("error.html", title=gettext("Too large"), message=message), 413

    @app.errorhandler(500)
    def server_error(exc: Any) -> tuple[str, int]:
        message = gettext(
            "The desk failed on this request; nothing was changed by it. The error is in the desk's log: "
            "try again, or tell whoever runs the desk."
        )
        return render_template("error.html", title=gettext("Desk error"), message=message), 500

    # ------------------------------------------------------------------ login

    @app.route("/login", methods=["GET", "POST"])
    def login() -> Response | str | tuple[str, int]:
        error = ""
        if request.method == "POST":
            name = request.form.get("name", "").strip()
            try:
                account = judges_repo.verify_login(
                    store,
                    name,
                    request.form.get("password", ""),
                    address=request.remote_addr or "",
                    zone=game.tz,
                )
            except LoginThrottled as exc:
                return render_template("login.html", error=str(exc)), 429
            if account is not None:
                session.clear()
                session["judge"] = account.name
                session["csrf"] = secrets.token_urlsafe(32)
                nxt = request.args.get("next") or ""
                return redirect(nxt if nxt.startswith("/") and not nxt.startswith("//") else url_for("index"))
            error = gettext("Wrong name or password.")
        return render_template("login.html", error=error)

    @app.post("/logout")
    def logout() -> Response:
        session.clear()
        return redirect(url_for("login"))

    # ------------------------------------------------------------------ pages

    @app.get("/changes")
    def changes() -> Response:
        """The store's counters now (JSON, English keys): each open page compares ``stamp`` with the one
        it was drawn from and refreshes, or offers to when a form is being filled (desk.js)."""
        c = data.changes(game, store)
        since = request.args.get("since", "")
        return jsonify(
            state_version=c.state_version,
            outbox_revision=c.outbox_revision,
            posts=c.posts,
            stamp=c.stamp,
            changed=bool(since) and since != c.stamp,
        )

    @app.get("/")
    def index() -> str:
        return render_template("game.html", o=data.game_overview(game, store))

    @app.get("/day/<int:n>")
    def day(n: int) -> str:
        _known_day(n)
        return _day_page(n)

    def _day_page(n: int, *, error: str = "", form: dict[str, str] | None = None, which: str = "") -> str:
        """The day page; after a refused action, with the refusal and what the judge typed kept (in the
        form ``which``: ``override-<pid>``; the day's action forms read ``action_form`` themselves)."""
        form_name = which
        g.page_url = url_for("day", n=n)
        view = data.day_view(game, store, n)
        which = request.args.get("show", "all")
        rows = view.verdicts
        if which == "invalid":
            rows = tuple(v for v in rows if v.invalid)
        elif which == "flagged":
            rows = tuple(v for v in rows if v.needs_review)
        chart = svg.timeline_svg(
            svg.vote_series(view.moves),
            start=view.window[0],
            end=view.window[1],
            tz=game.tz,
            title=gettext("Votes per target over time"),
            marks=view.marks,
        )
        return render_template(
            "day.html",
            d=view,
            rows=rows,
            show=which,
            chart=Markup(chart),
            choices=data.OVERRIDE_CHOICES,
            revote_due=data.revote_due(game, store, n),
            action_error=error,
            action_form=form or {},
            action_which=form_name,
        )

    @app.post("/day/<int:n>/override")
    def override(n: int) -> Response | tuple[str, int]:
        _known_day(n)
        pid = request.form.get("pid", type=int)
        if pid is None:
            abort(400, description=gettext("No post given."))
        try:
            done = data.override(
                game,
                store,
                pid,
                request.form.get("as_kind", ""),
                request.form.get("target") or None,
                request.form.get("why", ""),
                g.judge,
                seen=request.form.get("seen", type=int),  # the overrides the page showed
            )
        except (ForumbotError, EngineError) as exc:
            return _day_page(n, error=str(exc), form=_submitted(), which=f"override-{pid}"), 400
        flash(gettext("Override recorded for post {pid} by {who}.").format(pid=done.pid, who=g.judge))
        return redirect(url_for("day", n=done.day, show=request.form.get("show", "all")) + f"#p{pid}")

    @app.get("/post/<int:pid>")
    def post(pid: int) -> str:
        try:
            view = data.post_revisions(game, store, pid)
        except UsageError as exc:  # the store has no such post
            abort(404, description=str(exc))
        pairs = [
            (a, b, diff.side_by_side(a.text, b.text))
            for a, b in zip(view.revisions, view.revisions[1:], strict=False)
        ]
        return render_template("post.html", p=view, pairs=pairs)

    @app.get("/night/<int:n>")
    def night(n: int) -> str:
        _known_night(n)
        return _night_page(n)

    def _night_page(n: int, *, error: str = "", form: dict[str, str] | None = None, which: str = "") -> str:
        """The night page; after a refused form, with the refusal and what the judge typed kept in the
        form ``which`` (``enter``, ``correct-<row>``, ``override-<message>``)."""
        g.page_url = url_for("night", n=n)
        return render_template(
            "night.html",
            nv=data.night_view(game, store, n),
            choices=data.NIGHT_OVERRIDE_CHOICES,
            kinds=data.night_kind_choices(game),
            action_kinds=data.night_action_choices(),
            action_error=error,
            action_form=form or {},
            action_which=which,
        )

    # ------------------------------------------------------------------ acting from the desk
    # Each action is the CLI's own desk operation (forumbot/web/data.py). A refusal re-renders the page
    # with the refusal and the form as the judge filled it (status 400), never a redirect that loses it.

    def _submitted() -> dict[str, str]:
        return {k: v for k, v in request.form.items() if k != "csrf"}

    @app.post("/day/<int:n>/close")
    def day_close(n: int) -> Response | tuple[str, int]:
        _known_day(n)
        try:
            done = data.close_day(
                game,
                store,
                n,
                g.judge,
                force_why=request.form.get("force_why", ""),
                expected_version=request.form.get("state_version", type=int),
            )
        except (ForumbotError, EngineError) as exc:
            return _day_page(n, error=str(exc), form=_submitted()), 400
        flash(done.message)
        return redirect(url_for("day", n=n))

    @app.post("/day/<int:n>/revote")
    def day_revote(n: int) -> Response | tuple[str, int]:
        _known_day(n)
        try:
            done = data.call_revote(game, store, n, g.judge, request.form.get("called_at", ""))
        except (ForumbotError, EngineError) as exc:
            return _day_page(n, error=str(exc), form=_submitted()), 400
        flash(done.message)
        return redirect(url_for("day", n=n))

    @app.post("/day/<int:n>/proxy")
    def day_proxy(n: int) -> Response | tuple[str, int]:
        _known_day(n)
        form = request.form
        try:
            done = data.proxy_vote(
                game, store, n, form.get("player", ""), form.get("target", ""), form.get("at", ""), g.judge
            )
        except (ForumbotError, EngineError) as exc:
            return _day_page(n, error=str(exc), form=_submitted()), 400
        flash(done.message)
        return redirect(url_for("day", n=n))

    @app.post("/day/<int:n>/poll")
    def day_poll(n: int) -> Response | tuple[str, int]:
        _known_day(n)
        try:
            done = data.poll_now(game, store, g.judge)
        except ForumbotError as exc:
            return _day_page(n, error=str(exc), form=_submitted()), 400
        flash(done.message)
        return redirect(url_for("day", n=n))

    @app.post("/night/<int:n>/resolve")
    def night_resolve(n: int) -> Response | tuple[str, int]:
        _known_night(n)
        try:
            done = data.resolve_night(
                game, store, n, g.judge, expected_version=request.form.get("state_version", type=int)
            )
        except (ForumbotError, EngineError) as exc:
            return _night_page(n, error=str(exc)), 400
        flash(done.message)
        return redirect(url_for("night", n=n))

    @app.post("/night/<int:n>/submit")
    def night_submit(n: int) -> Response | tuple[str, int]:
        _known_night(n)
        form = _submitted()
        try:
            done = data.night_enter(
                game,
                store,
                n,
                form,
                form.get("why", ""),
                g.judge,
                expected_version=request.form.get("state_version", type=int),
            )
        except (ForumbotError, EngineError) as exc:
            return _night_page(n, error=str(exc), form=form, which="enter"), 400
        flash(done.message)
        return redirect(url_for("night", n=n) + "#submissions")

    @app.post("/night/<int:n>/correct")
    def night_correct(n: int) -> Response | tuple[str, int]:
        _known_night(n)
        form = _submitted()
        row_id = request.form.get("row_id", type=int)
        if row_id is None:
            abort(400, description=gettext("No submission given."))
        try:
            done = data.night_correct(
                game,
                store,
                n,
                row_id,
                None if form.get("withdraw") == "1" else form,
                form.get("why", ""),
                g.judge,
                expected_version=request.form.get("state_version", type=int),
            )
        except (ForumbotError, EngineError) as exc:
            return _night_page(n, error=str(exc), form=form, which=f"correct-{row_id}"), 400
        flash(done.message)
        return redirect(url_for("night", n=n) + "#submissions")

    @app.post("/night/<int:n>/override")
    def night_override(n: int) -> Response | tuple[str, int]:
        message_id = request.form.get("message_id", "")
        if not message_id:
            abort(400, description=gettext("No message given."))
        form = request.form
        try:
            done = data.night_override(
                game,
                store,
                n,
                message_id,
                form.get("as_kind", ""),
                form.get("why", ""),
                g.judge,
                kind=form.get("kind") or None,
                targets=tuple(t for t in (form.get("target"), form.get("second")) if t),
                pledge=form.get("pledge") or None,
                actor=form.get("actor") or None,
                none=form.get("none") == "1",
                waive_time=form.get("waive_time") == "1",
                expected_version=form.get("state_version", type=int),
            )
        except (ForumbotError, EngineError) as exc:
            return _night_page(n, error=str(exc), form=_submitted(), which=f"override-{message_id}"), 400
        flash(
            gettext("Override recorded for message {id} by {who}.").format(id=message_id, who=g.judge)
            + "".join(f" {x}" for x in (done.reread, done.warning) if x)
        )
        return redirect(url_for("night", n=n) + f"#m-{_anchor(message_id)}")

    @app.post("/night/<int:n>/override/undo")
    def night_override_undo(n: int) -> Response | tuple[str, int]:
        message_id = request.form.get("message_id", "")
        if not message_id:
            abort(400, description=gettext("No message given."))
        try:
            done = data.night_override_undo(game, store, n, message_id, request.form.get("why", ""), g.judge)
        except (ForumbotError, EngineError) as exc:
            return _night_page(n, error=str(exc), form=_submitted(), which=f"override-{message_id}"), 400
        flash(
            gettext("Override of message {id} undone by {who}.").format(id=message_id, who=g.judge)
            + "".join(f" {x}" for x in (done.reread, done.warning) if x)
        )
        return redirect(url_for("night", n=n) + f"#m-{_anchor(message_id)}")

    @app.get("/outbox")
    def outbox() -> str:
        return _outbox_page()

    def _outbox_page(*, error: str = "", form: dict[str, str] | None = None, which: str = "") -> str:
        """The outbox; after a refused form, with the refusal next to that item's form (``which``:
        ``item-<id>``) and its text as the judge typed it, never the stored one."""
        g.page_url = url_for("outbox")
        queued = [(o, Markup(bbcode.to_html(o.body))) for o in data.outbox_items(game, store)]
        items = [(d, Markup(bbcode.to_html(d.bbcode))) for d in data.public_drafts(game, store)]
        in_outbox = data.queued_drafts(game, store)
        return render_template(
            "outbox.html",
            queued=queued,
            items=items,
            in_outbox=in_outbox,
            action_error=error,
            action_form=form or {},
            action_which=which,
        )

    @app.post("/outbox/draft/<key>")
    def outbox_add_draft(key: str) -> Response | tuple[str, int]:
        try:
            item_id = data.outbox_add_draft(game, store, key, g.judge)
        except (ForumbotError, EngineError) as exc:
            return _outbox_page(error=str(exc), which=f"draft-{key}"), 400
        flash(gettext("Draft put in the outbox as #{id} by {who}.").format(id=item_id, who=g.judge))
        return redirect(url_for("outbox") + f"#item-{item_id}")

    @app.post("/outbox/<int:item_id>/approve")
    def outbox_approve(item_id: int) -> Response | tuple[str, int]:
        try:
            status = data.outbox_approve(
                game,
                store,
                item_id,
                g.judge,
                request.form.get("body"),
                revision=request.form.get("revision", type=int),  # the revision the page showed
            )
        except (ForumbotError, EngineError) as exc:
            return _outbox_page(error=str(exc), form=_submitted(), which=f"item-{item_id}"), 400
        flash(gettext("Outbox item #{id}: {status} by {who}.").format(id=item_id, status=status, who=g.judge))
        return redirect(url_for("outbox") + f"#item-{item_id}")

    @app.post("/outbox/<int:item_id>/cancel")
    def outbox_cancel(item_id: int) -> Response | tuple[str, int]:
        try:
            status = data.outbox_cancel(
                game,
                store,
                item_id,
                g.judge,
                request.form.get("why", ""),
                revision=request.form.get("revision", type=int),
            )
        except (ForumbotError, EngineError) as exc:
            return _outbox_page(error=str(exc), form=_submitted(), which=f"item-{item_id}"), 400
        flash(gettext("Outbox item #{id}: {status} by {who}.").format(id=item_id, status=status, who=g.judge))
        return redirect(url_for("outbox") + f"#item-{item_id}")

    @app.post("/outbox/<int:item_id>/send")
    def outbox_send(item_id: int) -> Response | tuple[str, int]:
        try:
            status, words = data.outbox_send(
                game, store, item_id, g.judge, revision=request.form.get("revision", type=int)
            )
        except (ForumbotError, EngineError) as exc:
            return _outbox_page(error=str(exc), form=_submitted(), which=f"item-{item_id}"), 400
        flash(
            gettext("Outbox item #{id}: {status} by {who}.").format(id=item_id, status=status, who=g.judge)
            + (f" {words}" if words else "")
        )
        return redirect(url_for("outbox") + f"#item-{item_id}")

    # ------------------------------------------------------------------ export

    def _download(body: bytes, filename: str, mimetype: str) -> Response:
        resp = Response(body, mimetype=mimetype)
        resp.headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(filename)}"
        return resp

    @app.get("/export/day/<int:n>.<fmt>")
    def export_day(n: int, fmt: str) -> Response:
        from forumbot import export

        _known_day(n)
        tables = export.day_tables(game, store, n)
        return _exported(tables, f"{game.name}-day{n}", fmt)

    @app.get("/export/game.<fmt>")
    def export_game(fmt: str) -> Response:
        from forumbot import export

        return _exported(export.game_tables(game, store), game.name, fmt)

    def _exported(tables: list[Table], stem: str, fmt: str) -> Response:
        from forumbot import export

        if fmt == "xlsx":
            return _download(export.xlsx_bytes(tables), f"{stem}.xlsx", XLSX_MIME)
        if fmt == "zip":
            return _download(export.csv_zip(tables), f"{stem}-csv.zip", "application/zip")
        abort(404)

    @app.get("/setup")
    def setup() -> str:
        return _setup_page()

    def _setup_page(
        *, error: str = "", form: dict[str, str] | None = None, done: data.SetupDone | None = None
    ) -> str:
        g.page_url = url_for("setup")
        return render_template(
            "setup.html",
            sv=data.setup_view(game, store),
            action_error=error,
            action_form=form or {},
            done=done,
        )

    @app.post("/setup")
    def setup_post() -> str | tuple[str, int]:
        form = _submitted()
        try:
            done = data.setup_game(
                game, store, g.judge, form, expected_version=request.form.get("state_version", type=int)
            )
        except (ForumbotError, EngineError) as exc:
            return _setup_page(error=str(exc), form=form), 400
        # shown once, not redirected: the draw's private notices are not kept anywhere else
        return _setup_page(done=done)

    @app.get("/history")
    def history() -> str:
        return render_template(
            "history.html",
            items=data.state_history(game, store),
            log=data.change_log(game, store),
            state_version=data.state_version(game, store),
        )

    @app.post("/history/undo")
    def undo() -> Response:
        undone, now = data.undo(
            game, store, g.judge, expected_version=request.form.get("state_version", type=int)
        )
        flash(gettext("Undone: {undone}. Current: {now}.").format(undone=undone, now=now))
        back = request.form.get("next", "")  # the night page offers the undo of its resolution
        return redirect(back if back.startswith("/") and not back.startswith("//") else url_for("history"))

    return app
