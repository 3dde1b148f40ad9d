"""Accounts over HTTP: register, sign in, guests, sign out, guest upgrade, and who am I.

Sign-ins and registrations are throttled per account and per address before any password
is hashed (answered 429 with ``Retry-After``), and hashing runs in a few slots
(``hash_concurrency``), so a flood of attempts can neither guess passwords nor take every core.
"""

from __future__ import annotations

import functools
import re
import secrets
from typing import Annotated, Any, Literal

from anyio import from_thread
from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator
from sqlalchemy.exc import IntegrityError

from server.api.deps import DB, BearerToken, CurrentUser
from server.api.routes_admin import Admin
from server.api.security import client_address, reserved_name
from server.game.cluster.shared_limits import limiters
from server.game.limits import Limiter, retry_after
from server.metrics import Metrics
from server.settings import Settings
from server.store import repos
from server.store.models import User

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
router = APIRouter(prefix="/api", tags=["accounts"])


MIN_USERNAME, MIN_PASSWORD = 3, 6
Language = Literal["en", "sl", "it", "hr"]
"""The page's languages (web/js/i18n.js ``LANGS``): an account keeps one of them."""


class FormError(HTTPException):
    """A refused account form: the English ``detail`` plus a ``code`` and ``params`` the page words itself.

    Codes: ``name_taken`` {name}, ``name_reserved`` {name}, ``bad_name`` {min, max}, ``too_short``
    {field, min}, ``wrong_password``, ``throttled`` {seconds}, ``not_guest``, ``busy`` {seconds}.
    """

    def __init__(self, status: int, code: str, detail: str, params: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        """Build the refusal; ``detail`` stays the English sentence older clients show."""
        super().__init__(status, detail, headers=headers)
        self.code = code
        self.params = params or {}


async def form_error_response(request: Request, exc: Exception) -> JSONResponse:
    """Answer a ``FormError``: ``{"detail": English, "code": ..., "params": {...}}``."""
    assert isinstance(exc, FormError)
    return JSONResponse({"detail": exc.detail, "code": exc.code, "params": exc.params},
                        status_code=exc.status_code, headers=exc.headers)


class Credentials(BaseModel):
    """A username and password (their shortest lengths are checked by the routes, answered as ``too_short``)."""

    username: str = Field(max_length=32)
    password: str = Field(max_length=200)

    @field_validator("username", "password")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        # A NUL cannot be stored in PostgreSQL text; no name or password needs a control character.
        if any(ord(ch) < 32 for ch in value):
            raise ValueError("control characters are not allowed")
        return value


class Throttles:
    """The sign-in, registration, guest and puzzle limits (figures from ``Settings``; shared in Redis when clustered).

    Failed sign-ins count per account *and* address (``account``), so a stranger's failures do not
    lock the owner out elsewhere, and per account from every address (``account_all``), which refuses
    only an address with failures of its own on the account still counted (docs/security.md).
    """

    def __init__(self, settings: Settings, metrics: Metrics | None = None) -> None:
        """Build the limiters for ``settings``: in Redis when ``redis_url`` is set, else in this process.

        Each refusal is counted in ``metrics`` (``treset_signins_refused_total``, by limit).
        """
        self.metrics = metrics
        limiter = limiters(settings.redis_url, settings.limits_prefix)
        self.account = limiter("login", settings.login_per_account, settings.auth_window_s)
        self.account_all = limiter("login-all", settings.login_per_account_all, settings.auth_window_s)
        self.address = limiter("address", settings.auth_per_address, settings.auth_window_s)
        self.guests = limiter("guests", settings.guests_per_address, settings.guest_window_s)
        self.puzzles = limiter("puzzles", settings.puzzle_requests, settings.puzzle_window_s)

    def login_wait(self, account: str, address: str) -> float:
        """Return the seconds ``address`` must wait before signing in to ``account`` (0: it may try now)."""
        pair = f"{account}\n{address}"
        wait = self.account.blocked(pair)
        if wait == 0 and not self.account.fresh(pair):
            wait = self.account_all.blocked(account)
        return wait

    def login_failed(self, account: str, address: str) -> None:
        """Count a failed sign-in to ``account`` from ``address``."""
        self.account.hit(f"{account}\n{address}")
        self.account_all.hit(account)

    def refused(self, limit: str) -> None:
        """Count a refusal by the limit named ``limit`` (``account``, ``address``, ``guests``)."""
        if self.metrics is not None:
            self.metrics.signins_refused.labels(limit).inc()

    def check(self, limit: str, key: str) -> None:
        """Count one attempt for ``key`` against ``limit`` (``address`` or ``guests``); 429 once it is spent."""
        throttle: Limiter = getattr(self, limit)
        wait = throttle.hit(key)
        if wait > 0:
            self.refused(limit)
            raise FormError(429, "throttled", f"too many attempts; try again in {retry_after(wait)} s",
                            {"seconds": int(retry_after(wait))}, headers={"Retry-After": retry_after(wait)})


def _throttles(request: Request) -> Throttles:
    return request.app.state.throttles  # type: ignore[no-any-return]


def user_out(user: User) -> dict[str, Any]:
    """Return an account as clients see it (``lang``: the page language it keeps, or None)."""
    return {"id": user.id, "username": user.username, "role": user.role, "lang": user.lang}


def check_username(username: str) -> None:
    """Answer 422 unless ``username`` is a name a person may register (form, and not a reserved name)."""
    if len(username) < MIN_USERNAME:
        raise FormError(422, "too_short", f"a username needs at least {MIN_USERNAME} characters",
                        {"field": "username", "min": MIN_USERNAME})
    if not USERNAME.match(username):
        raise FormError(422, "bad_name", "usernames are 3-32 letters, digits, '_', '.', '-'", {"min": 3, "max": 32})
    if reserved_name(username):
        raise FormError(422, "name_reserved", f"the name {username!r} is reserved", {"name": username})


def check_password(password: str) -> None:
    """Answer 422 when a new password is shorter than ``MIN_PASSWORD``."""
    if len(password) < MIN_PASSWORD:
        raise FormError(422, "too_short", f"a password needs at least {MIN_PASSWORD} characters",
                        {"field": "password", "min": MIN_PASSWORD})


def _taken(username: str) -> FormError:
    return FormError(409, "name_taken", f"the name {username!r} is taken", {"name": username})


def _hashing(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a repository call that hashes a password; answer 503 when every hashing slot stays busy."""
    try:
        return call(*args, **kwargs)
    except repos.HashingBusy as exc:
        raise FormError(503, "busy", str(exc), {"seconds": 2}, headers={"Retry-After": "2"}) from None


@router.post("/auth/register")
def register(body: Credentials, request: Request, session: DB) -> dict[str, Any]:
    """Create an account and sign it in."""
    check_username(body.username)
    check_password(body.password)
    _throttles(request).check("address", client_address(request.scope))
    try:
        user = _hashing(repos.create_user, session=session, username=body.username, password=body.password)
        token = repos.issue_token(session=session, user=user)
        session.commit()
    except IntegrityError:
        session.rollback()
        raise _taken(body.username) from None
    return {"token": token, "user": user_out(user)}


@router.post("/auth/login")
def login(body: Credentials, request: Request, session: DB) -> dict[str, Any]:
    """Sign in; refused (429) after too many attempts on the account or from the address."""
    throttles = _throttles(request)
    account, address = body.username.lower(), client_address(request.scope)
    # Checked before any hashing; an account's budget is spent by failures only, so its owner who
    # knows the password is not locked out by attempts that succeed, nor by failures from elsewhere.
    wait = throttles.login_wait(account, address)
    if wait > 0:
        throttles.refused("account")
        raise FormError(429, "throttled", f"too many failed sign-ins for this account; try again in {retry_after(wait)} s",
                        {"seconds": int(retry_after(wait))}, headers={"Retry-After": retry_after(wait)})
    throttles.check("address", address)
    user = repos.get_user_by_name(session=session, username=body.username)
    if user is None or not _hashing(repos.check_password, user=user, password=body.password):
        throttles.login_failed(account, address)
        raise FormError(401, "wrong_password", "wrong username or password")
    token = repos.issue_token(session=session, user=user)
    session.commit()
    return {"token": token, "user": user_out(user)}


@router.post("/auth/guest")
def guest(request: Request, session: DB) -> dict[str, Any]:
    """Create a guest account (a few per address per window)."""
    _throttles(request).check("guests", client_address(request.scope))
    user = repos.create_user(session=session, username=f"guest-{secrets.token_hex(4)}", password=None, role="guest")
    token = repos.issue_token(session=session, user=user)
    session.commit()
    return {"token": token, "user": user_out(user)}


@router.post("/auth/logout")
def logout(user: CurrentUser, token: BearerToken, request: Request, session: DB) -> dict[str, Any]:
    """Revoke the request's token and close the sockets signed in with it."""
    repos.revoke_token(session=session, token=token)
    session.commit()
    # Sockets signed in with this token are closed (4401) on the event loop that owns them.
    from_thread.run(request.app.state.hub.revoke, repos.hash_token(token))
    return {}


@router.post("/auth/upgrade")
def upgrade(body: Credentials, user: CurrentUser, request: Request, session: DB) -> dict[str, Any]:
    """Turn a guest account into a registered one (same id, games and ratings)."""
    if user.role != "guest":
        raise FormError(403, "not_guest", "only a guest account can be turned into a registered one")
    check_username(body.username)
    check_password(body.password)
    _throttles(request).check("address", client_address(request.scope))
    if repos.get_user_by_name(session=session, username=body.username) is not None:
        raise _taken(body.username)
    try:
        _hashing(repos.upgrade_guest, session=session, user=user, username=body.username, password=body.password)
        token = repos.issue_token(session=session, user=user)
        session.commit()
    except IntegrityError:  # taken by a concurrent registration
        session.rollback()
        raise _taken(body.username) from None
    from_thread.run(functools.partial(request.app.state.hub.rename, user_id=user.id, username=user.username,
                                      role=user.role))
    return {"token": token, "user": user_out(user)}


@router.get("/me")
def me(user: CurrentUser) -> dict[str, Any]:
    """Return the signed-in account."""
    return user_out(user)


class LanguageChoice(BaseModel):
    """The page language an account keeps."""

    lang: Language


@router.put("/me/lang")
def set_lang(body: LanguageChoice, user: CurrentUser, session: DB) -> dict[str, Any]:
    """Keep the page language picked in the header on the signed-in account (guests too); return the account."""
    stored = session.get(User, user.id)
    assert stored is not None  # the account of a valid token exists
    stored.lang = body.lang
    session.commit()
    return user_out(stored)


@router.post("/admin/users/{username}/revoke-tokens", tags=["admin"])
def revoke_tokens(username: Annotated[str, Path(max_length=32)], admin: Admin, request: Request, session: DB,
                  kind: Literal["session", "api"] | None = None) -> dict[str, Any]:
    """Revoke every token of an account (or only its ``session`` or ``api`` tokens) and close its sockets."""
    user = repos.get_user_by_name(session=session, username=username)
    if user is None:
        raise HTTPException(404, f"no user {username!r}")
    hashes = repos.revoke_user_tokens(session=session, user_id=user.id, kind=kind)
    session.commit()
    closed = from_thread.run(request.app.state.hub.revoke_all, set(hashes))
    return {"username": user.username, "revoked": len(hashes), "sockets_closed": closed}
