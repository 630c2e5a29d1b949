"""The headers every page and event stream carries: the content security policy of the pages (inline
scripts and styles of our own, nothing from elsewhere, no frames) and no caching of what a viewer saw."""

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # an invitation link in the address bar never leaves in a Referer
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
