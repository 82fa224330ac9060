;;; emacs-client-pkg.el --- what `package-install-file' of this folder installs  -*- no-byte-compile: t -*-
;; The folder holds two entry points (agent-lsp.el for eglot, agent-lsp-lsp-mode.el for
;; lsp-mode); without this file package.el would name the folder's package after whichever
;; file with a header sorts first.  It is the one package `agent-lsp', both files inside.
(define-package "agent-lsp" "0.1.0"
  "A coding agent behind the Language Server Protocol: eglot and lsp-mode set-up"
  '((emacs "28.1")))
;;; emacs-client-pkg.el ends here
