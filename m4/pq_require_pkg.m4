# PQ_REQUIRE_PKG(VARIABLE-PREFIX, MODULES, DEBIAN-PACKAGE)
# ---------------------------------------------------------
# Like PKG_CHECK_MODULES, but a missing module stops configure with the
# name of the Debian package to install.
AC_DEFUN([PQ_REQUIRE_PKG],
[PKG_CHECK_MODULES([$1], [$2], [],
  [AC_MSG_ERROR([$2 not found ($$1_PKG_ERRORS): install the Debian package $3])])])
