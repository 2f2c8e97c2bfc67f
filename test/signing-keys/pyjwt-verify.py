"""Verifies an embed token as a Python app on PyJWT does: the key from the service's JWKS URL by the token's kid.

argv: jwks_url token algorithm issuer audience. Prints the token's `sub`, or `refused: <exception class>`.
"""
import sys

import jwt

jwks_url, token, algorithm, issuer, audience = sys.argv[1:6]
try:
    key = jwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(token).key
    claims = jwt.decode(token, key, algorithms=[algorithm], issuer=issuer, audience=audience)
    print(claims["sub"])
except Exception as error:  # the class names the failure; its text may carry the token
    print(f"refused: {type(error).__name__}")
