;;; agent-lsp.el --- A coding agent behind the Language Server Protocol  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages, convenience

;; This file is not part of GNU Emacs.

;;; Commentary:

;; agent-lsp runs a coding agent as a language server (`agent-lsp serve').
;; After (require 'agent-lsp), (agent-lsp-setup) starts it through eglot
;; for the major modes in `agent-lsp-modes': each edit the agent proposes
;; opens its diff while Emacs asks, accepted edits are saved by Emacs, and
;; commands ask first.  Keys under `agent-lsp-keymap-prefix' (C-c a):
;; a code actions, f fix any Flymake diagnostic on the line, t a task,
;; c cancel.  `agent-lsp-doctor' shows the server's version, endpoint,
;; model and sandbox.
;;
;; The server reads its endpoint from the environment Emacs starts in:
;; AGENT_BASE_URL (an OpenAI-compatible .../v1), AGENT_MODEL and
;; AGENT_API_KEY.
;;
;; For other front ends (agent-lsp-lsp-mode.el) this file keeps what
;; does not depend on the LSP client: the options, the diff preview of an
;; edit (`agent-lsp-show-preview'), the answers to agentLsp/saveDocument
;; (`agent-lsp-save-file-buffer') and agentLsp/diagnostics
;; (`agent-lsp-file-diagnostics'), and the commands, which reach the
;; server through `agent-lsp-execute-functions'.

;;; Code:

(require 'cl-lib)
(require 'flymake)
(require 'url-util)

(defgroup agent-lsp nil
  "A coding agent behind the Language Server Protocol."
  :group 'tools
  :prefix "agent-lsp-")

(defcustom agent-lsp-program '("agent-lsp" "serve")
  "The command that starts the server, as a list: program and arguments.
Give the full path when `agent-lsp' is not on the variable `exec-path'."
  :type '(repeat string))

(defcustom agent-lsp-modes '(python-mode js-mode sh-mode c-mode go-mode rust-mode)
  "Major modes whose buffers get agent-lsp."
  :type '(repeat symbol))

(defcustom agent-lsp-beside nil
  "Your own language server per major mode, kept beside agent-lsp.
eglot runs one server per buffer, so these modes start the multiplexer
rass (PyPI `rassumfrassum'): with \\='((python-mode \"ruff\" \"server\")) a
Python buffer runs `rass PRESET -- ruff server -- agent-lsp serve' and
gets ruff's diagnostics and actions plus \"Fix with agent\"."
  :type '(alist :key-type symbol :value-type (repeat string)))

(defcustom agent-lsp-rass-preset nil
  "The rass preset used with `agent-lsp-beside', or nil for the one beside it.
rass waits 3 s for each server's `initialize' and drops a slower one for
the session; emacs-client/rass-agent-lsp.py waits up to 20 s."
  :type '(choice (const :tag "emacs-client/rass-agent-lsp.py" nil) file))

(defcustom agent-lsp-keymap-prefix "C-c a"
  "Prefix of agent-lsp's keys in buffers it manages, or nil for none."
  :type '(choice (const :tag "No keys" nil) string))

(defvar agent-lsp-execute-functions nil
  "Functions that send a command to the buffer's agent-lsp server.
Each is called with COMMAND (a symbol such as `agentLsp.runTask') and
ARGUMENTS (a vector) and returns non-nil when it sent it; the first that
does wins.  The eglot and lsp-mode set-ups each add one.")

;;; Previews of an edit

(defun agent-lsp-needs-confirmation-p (edit)
  "Non-nil when the WorkspaceEdit plist EDIT has an annotation to confirm."
  (let ((annotations (plist-get edit :changeAnnotations)) (ask nil))
    (cl-loop for (_id annotation) on annotations by #'cddr
             when (eq (plist-get annotation :needsConfirmation) t) do (setq ask t))
    ask))

(defun agent-lsp-text-edits (edit path-of)
  "Return (PATH . EDITS) for each document the WorkspaceEdit plist EDIT edits.
PATH-OF turns a URI string into a file name.  Both forms of a
WorkspaceEdit count: `documentChanges' and `changes'."
  (append
   (cl-loop for change across (or (plist-get edit :documentChanges) [])
            when (plist-get change :edits)
            collect (cons (funcall path-of (plist-get (plist-get change :textDocument) :uri))
                          (plist-get change :edits)))
   (cl-loop for (uri edits) on (plist-get edit :changes) by #'cddr
            collect (cons (funcall path-of (substring (symbol-name uri) 1)) edits))))

(defun agent-lsp-diff (path edits apply)
  "The unified diff EDITS make to PATH (its buffer if visited, else the file).
APPLY is called with EDITS in a buffer holding the old text and applies
them there, as the LSP client would."
  (let* ((buf (find-buffer-visiting path))
         (exists (or buf (file-exists-p path)))
         (name (file-relative-name path))
         (old (make-temp-file "agent-lsp-old"))
         (new (make-temp-file "agent-lsp-new")))
    (unwind-protect
        (progn
          (with-temp-buffer
            (cond (buf (insert-buffer-substring buf))
                  (exists (insert-file-contents path)))
            (let ((coding-system-for-write 'utf-8-unix)) (write-region nil nil old nil 'quiet))
            (funcall apply edits)
            (let ((coding-system-for-write 'utf-8-unix)) (write-region nil nil new nil 'quiet)))
          (with-temp-buffer
            (call-process "diff" nil t nil "-u"
                          "--label" (if exists (concat "a/" name) "/dev/null")
                          "--label" (concat "b/" name) old new)
            (concat (if exists "" (format "new file: %s\n" name)) (buffer-string))))
      (delete-file old)
      (delete-file new))))

(defun agent-lsp-show-preview (edit path-of apply)
  "Show the diff of the WorkspaceEdit plist EDIT below the selected window.
PATH-OF and APPLY are as for `agent-lsp-text-edits' and `agent-lsp-diff'.
Return the window, for `quit-window' once the person has answered."
  (let ((buf (get-buffer-create "*agent-lsp preview*")))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (dolist (item (agent-lsp-text-edits edit path-of))
          (insert (agent-lsp-diff (car item) (cdr item) apply)))
        (goto-char (point-min)))
      (diff-mode)
      (setq buffer-read-only t))
    (let ((win (display-buffer buf '((display-buffer-below-selected display-buffer-at-bottom)
                                     (window-height . fit-window-to-buffer)
                                     (inhibit-same-window . t)))))
      (redisplay t)
      win)))

(defun agent-lsp-ask-with-preview (edit label path-of apply)
  "Ask whether to apply EDIT (called LABEL) while its diff is on screen.
PATH-OF and APPLY are as for `agent-lsp-show-preview'.  Non-nil means yes;
the diff window closes on the answer."
  (let ((win (agent-lsp-show-preview edit path-of apply)))
    (unwind-protect
        (y-or-n-p (format "Apply %s? " (or label "the agent's edit")))
      (when (window-live-p win) (quit-window t win)))))

;;; Answers to the server's own requests

(defun agent-lsp-save-file-buffer (path)
  "Save the buffer visiting PATH, as agentLsp/saveDocument asks; t when saved.
After an accepted edit the server asks the editor to save, so the file,
the buffer's modified flag and its modtime stay in step (no \"changed on
disk\" questions later).  `before-save-hook' is skipped: format-on-save
would rewrite the agent's edit unreviewed."
  (let ((buf (find-buffer-visiting path)))
    (when buf
      (with-current-buffer buf
        (let ((before-save-hook nil))
          (save-buffer))
        (not (buffer-modified-p))))))

(defun agent-lsp-lsp-diagnostic (diag position-of)
  "The Flymake diagnostic DIAG as an LSP Diagnostic plist.
POSITION-OF turns a buffer position into an LSP Position plist."
  (list :range (list :start (funcall position-of (flymake-diagnostic-beg diag))
                     :end (funcall position-of (flymake-diagnostic-end diag)))
        :severity (pcase (flymake-diagnostic-type diag)
                    ((or :error 'eglot-error) 1) ((or :warning 'eglot-warning) 2) (_ 3))
        :source (format "%s" (flymake-diagnostic-backend diag))
        :message (flymake-diagnostic-text diag)))

(defun agent-lsp-file-diagnostics (path convert)
  "Every Flymake diagnostic of the buffer visiting PATH, for agentLsp/diagnostics.
CONVERT turns one into an LSP Diagnostic plist.  Return a vector, or nil
when no buffer visits PATH or Flymake is off there (the agent then claims
nothing about what its edit broke)."
  (let ((buf (find-buffer-visiting path)))
    (when (and buf (buffer-local-value 'flymake-mode buf))
      (with-current-buffer buf
        (save-restriction
          (widen)
          (vconcat (mapcar convert (flymake-diagnostics))))))))

;;; Commands

(defun agent-lsp-execute (command &rest arguments)
  "Send COMMAND with ARGUMENTS to the current buffer's agent-lsp server."
  (unless (run-hook-with-args-until-success 'agent-lsp-execute-functions command (vconcat arguments))
    (user-error "No agent-lsp server manages this buffer")))

(defun agent-lsp--uri (file)
  "The file:// URI of FILE."
  (concat "file://" (url-hexify-string (expand-file-name file) (cons ?/ url-unreserved-chars))))

(defun agent-lsp-position (pos)
  "The LSP Position plist of buffer position POS (characters, not UTF-16 units)."
  (save-excursion
    (goto-char pos)
    (list :line (1- (line-number-at-pos pos t)) :character (- pos (line-beginning-position)))))

(defvar agent-lsp-fix-function
  (lambda (diag) (agent-lsp-lsp-diagnostic diag #'agent-lsp-position))
  "Function returning the LSP Diagnostic plist of a Flymake diagnostic.
The eglot set-up keeps eglot's own diagnostics as the server sent them.")

;;;###autoload
(defun agent-lsp-task (task)
  "Ask the agent to do TASK, about the current file (the palette)."
  (interactive "sAgent task: ")
  (agent-lsp-execute 'agentLsp.runTask (list :task task :uri (agent-lsp--uri buffer-file-name)))
  (message "agent-lsp: working on it; the answer will show here"))

;;;###autoload
(defun agent-lsp-fix ()
  "Fix with agent: a diagnostic on this line, from any Flymake backend.
Linters too: eglot's own code actions only carry this server's
diagnostics; this passes all of them."
  (interactive)
  (let* ((diags (flymake-diagnostics (line-beginning-position) (line-end-position)))
         (items (mapcar (lambda (d) (cons (flymake-diagnostic-text d) d)) diags))
         (diag (cond ((null items) (user-error "No diagnostic on this line"))
                     ((null (cdr items)) (cdar items))
                     (t (cdr (assoc (completing-read "Fix with agent: " items nil t) items))))))
    (agent-lsp-execute 'agentLsp.fixDiagnostic
                       (list :uri (agent-lsp--uri buffer-file-name)
                             :diagnostic (funcall agent-lsp-fix-function diag)))
    (message "agent-lsp: working on it; the answer will show here")))

;;;###autoload
(defun agent-lsp-cancel ()
  "Cancel the agent's running task."
  (interactive)
  (agent-lsp-execute 'agentLsp.cancel))

;;;###autoload
(defun agent-lsp-new-session ()
  "Forget the conversation."
  (interactive)
  (agent-lsp-execute 'agentLsp.newSession))

;;;###autoload
(defun agent-lsp-undo ()
  "Take back the agent's last task (one edit, reviewed like the agent's own)."
  (interactive)
  (agent-lsp-execute 'agentLsp.undoTask))

;;;###autoload
(defun agent-lsp-doctor ()
  "Show what the server would use: its version, endpoint, model and sandbox.
Runs `agent-lsp doctor' in the current directory; the API key is only
said to be set or not."
  (interactive)
  (let ((buf (get-buffer-create "*agent-lsp doctor*"))
        (program (car agent-lsp-program)))
    (with-current-buffer buf
      (let ((inhibit-read-only t) (dir default-directory))
        (erase-buffer)
        (if (not (executable-find program))
            (insert (format "%s is not on exec-path: install agent-lsp (pipx install ...) \
or set `agent-lsp-program' to its full path.\n" program))
          (let ((default-directory dir))
            (call-process program nil t nil "doctor" dir))))
      (special-mode))
    (display-buffer buf)))

(defvar agent-lsp-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "f") #'agent-lsp-fix)
    (define-key map (kbd "t") #'agent-lsp-task)
    (define-key map (kbd "c") #'agent-lsp-cancel)
    (define-key map (kbd "n") #'agent-lsp-new-session)
    (define-key map (kbd "u") #'agent-lsp-undo)
    (define-key map (kbd "d") #'agent-lsp-doctor)
    map)
  "The keys of agent-lsp, under `agent-lsp-keymap-prefix'.
The set-up adds a, the code actions.")

;;;###autoload
(defun agent-lsp-setup ()
  "Set agent-lsp up with eglot for the modes in `agent-lsp-modes'.
Also for those of `agent-lsp-beside', through rass.  Set the options
first; calling this again applies changed options."
  (interactive)
  (require 'agent-lsp-eglot)
  (declare-function agent-lsp-eglot-setup "agent-lsp-eglot")
  (agent-lsp-eglot-setup))

(provide 'agent-lsp)
;;; agent-lsp.el ends here
