"""Request dependencies shared by the route modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from sqlalchemy.orm import Session

from server.store import repos
from server.store.models import User


def get_session(request: Request) -> Iterator[Session]:
    """Yield a database session for one request."""
    with request.app.state.sessions() as session:
        yield session


DB = Annotated[Session, Depends(get_session)]


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str:
    """Return the request's bearer token (``""`` when none)."""
    return (authorization or "").removeprefix("Bearer ").strip()


BearerToken = Annotated[str, Depends(bearer_token)]


def current_user(request: Request, session: DB, token: BearerToken) -> User:
    """Return the user of the request's bearer token, or answer 401 (unknown, revoked or expired token)."""
    if not token or len(token) > 256:
        raise HTTPException(401, "sign in first (Authorization: Bearer TOKEN)")
    user = repos.user_for_token(session=session, token=token, idle_days=request.app.state.settings.session_idle_days)
    session.commit()  # an expired token's deletion, or the renewed last use
    if user is None:
        raise HTTPException(401, "sign in first (Authorization: Bearer TOKEN); a session unused for long expires")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
