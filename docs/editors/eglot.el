;;; agent-lsp with eglot (Emacs 28+ with eglot 1.9+; Emacs 29+ has eglot built in)  -*- lexical-binding: t -*-
;;
;; Put this in your init file (or `load' it). The server reads its endpoint from the
;; environment Emacs starts in: AGENT_BASE_URL (an OpenAI-compatible .../v1),
;; AGENT_MODEL, AGENT_API_KEY. `agent-lsp' must be on `exec-path' (or give its full path).
;;
;; eglot runs one server per buffer: list here the modes that have no other server
;; (or that you want the agent for more than their usual server).

(require 'eglot)
(require 'cl-lib)

(defvar agent-lsp-modes '(python-mode js-mode sh-mode c-mode go-mode rust-mode)
  "Major modes whose buffers get agent-lsp through eglot.")

;; A class of its own, so the methods below only touch agent-lsp's connection.
(defclass agent-lsp-server (eglot-lsp-server) ()
  :documentation "agent-lsp: the coding agent behind LSP.")

;; detachCommands: eglot waits for `workspace/executeCommand' synchronously (10 s
;; timeout, Emacs blocked meanwhile); with it the server answers at once and the
;; agent's answer arrives as a message.
(add-to-list 'eglot-server-programs
             `(,agent-lsp-modes . (agent-lsp-server "agent-lsp" "serve"
                                                    :initializationOptions (:detachCommands t))))
(defun agent-lsp--maybe-start ()
  (when (memq major-mode agent-lsp-modes) (eglot-ensure)))
(dolist (mode agent-lsp-modes) ; (a derived mode runs its parent's hook too: hence the check)
  (add-hook (intern (format "%s-hook" mode)) #'agent-lsp--maybe-start))

;; Tell the server this client saves buffers on request (see agentLsp/saveDocument), and
;; that it reviews annotated edits itself (the preview below), so the server sends each
;; edit with needsConfirmation instead of holding it as diagnostics (its inline review).
(cl-defmethod eglot-client-capabilities :around ((_server agent-lsp-server))
  (let* ((caps (copy-tree (cl-call-next-method))) ; eglot's own lists are constants: never edit them
         (workspace (plist-get caps :workspace)))
    (setq workspace (plist-put workspace :workspaceEdit
                               (plist-put (plist-get workspace :workspaceEdit)
                                          :changeAnnotationSupport '(:groupsOnLabel t))))
    (setq caps (plist-put caps :workspace workspace))
    (plist-put caps :experimental '(:agentLsp (:saveDocument t :diagnostics t)))))

;; --- edit previews -----------------------------------------------------------
;; Before an agent edit is applied, its unified diff opens in a window below and stays
;; there while you answer (y-or-n-p, so your completion UI renders it); the answer
;; closes it. The diff is computed here, from your buffer and the very edit eglot would
;; apply.

(defun agent-lsp--path (uri)
  (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))

(defun agent-lsp--text-edits (edit)
  "(PATH . EDITS) for each document EDIT changes, in either WorkspaceEdit form."
  (append
   (cl-loop for change across (or (plist-get edit :documentChanges) [])
            when (plist-get change :edits)
            collect (cons (agent-lsp--path (plist-get (plist-get change :textDocument) :uri))
                          (plist-get change :edits)))
   (cl-loop for (uri edits) on (plist-get edit :changes) by #'cddr
            collect (cons (agent-lsp--path (substring (symbol-name uri) 1)) edits))))

(defun agent-lsp--diff (path edits)
  "The unified diff EDITS make to PATH (its buffer if visited, else the file)."
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
            (eglot--apply-text-edits (append edits nil))
            (let ((coding-system-for-write 'utf-8-unix)) (write-region nil nil new nil 'quiet)))
          (with-temp-buffer
            (call-process "diff" nil t nil "-u"
                          "--label" (if exists (concat "a/" name) "/dev/null")
                          "--label" (concat "b/" name) old new)
            (concat (if exists "" (format "new file: %s
" name)) (buffer-string))))
      (delete-file old)
      (delete-file new))))

(defun agent-lsp--show-preview (edit)
  "Show EDIT's diff in a window below the selected one; return that window."
  (let ((buf (get-buffer-create "*agent-lsp preview*")))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (dolist (item (agent-lsp--text-edits edit))
          (insert (agent-lsp--diff (car item) (cdr item))))
        (goto-char (point-min)))
      (diff-mode)
      (setq buffer-read-only t))
    (let ((win (display-buffer buf '((display-buffer-below-selected display-buffer-at-bottom)
                                     (window-height . fit-window-to-buffer)
                                     (inhibit-same-window . t)))))
      (redisplay t)
      win)))

(defun agent-lsp--needs-confirmation (edit)
  (let ((annotations (plist-get edit :changeAnnotations)) (ask nil))
    (cl-loop for (_id annotation) on annotations by #'cddr
             when (eq (plist-get annotation :needsConfirmation) t) do (setq ask t))
    ask))

(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql workspace/applyEdit)) &key edit label &allow-other-keys)
  "The agent's edits: show the diff, ask, close the diff. A no leaves buffer and file alone."
  (let ((ask (agent-lsp--needs-confirmation edit)) (win nil) (yes t))
    (when ask
      (setq win (agent-lsp--show-preview edit))
      (unwind-protect
          (setq yes (y-or-n-p (format "Apply %s? " (or label "the agent's edit"))))
        (when (window-live-p win) (quit-window t win))))
    (if (not yes)
        (list :applied :json-false :failureReason "declined in Emacs")
      ;; visit every file first: eglot asks again about files without a buffer
      (dolist (item (agent-lsp--text-edits edit)) (find-file-noselect (car item)))
      (eglot--apply-workspace-edit edit nil)
      (list :applied t))))

;; After an accepted edit the server asks the editor to save the buffer, so the file on
;; disk, the buffer's modified flag and its modtime stay in step: no "changed on disk"
;; or "changed since visited; save anyway?" questions later.
(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql agentLsp/saveDocument)) &key uri &allow-other-keys)
  (let* ((path (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))
         (buf (find-buffer-visiting path)))
    (if (not buf)
        (list :saved :json-false)
      (with-current-buffer buf
        (let ((before-save-hook nil)) ; no format-on-save over the agent's edit
          (save-buffer))
        (list :saved (if (buffer-modified-p) :json-false t))))))

(defun agent-lsp--uri (file)
  (if (fboundp 'eglot-path-to-uri) (eglot-path-to-uri file) (eglot--path-to-uri file)))

(defun agent-lsp--server ()
  (let ((server (eglot-current-server)))
    (unless (cl-typep server 'agent-lsp-server)
      (user-error "agent-lsp is not managing this buffer"))
    server))

(defun agent-lsp--execute (command &rest arguments)
  (eglot-execute-command (agent-lsp--server) command (vconcat arguments)))

(defun agent-lsp-task (task)
  "The palette: ask the agent to do TASK, about the current file."
  (interactive "sAgent task: ")
  (agent-lsp--execute 'agentLsp.runTask
                      (list :task task :uri (agent-lsp--uri buffer-file-name)))
  (message "agent-lsp: working on it; the answer will show here"))

(defun agent-lsp--lsp-diagnostic (diag)
  "The flymake diagnostic DIAG as an LSP Diagnostic (eglot's own keep their original)."
  (or (let ((data (flymake-diagnostic-data diag)))
        (and (listp data) (cdr (assoc 'eglot-lsp-diag data))))
      (list :range (list :start (eglot--pos-to-lsp-position (flymake-diagnostic-beg diag))
                         :end (eglot--pos-to-lsp-position (flymake-diagnostic-end diag)))
            :severity (pcase (flymake-diagnostic-type diag)
                        ((or :error 'eglot-error) 1) ((or :warning 'eglot-warning) 2) (_ 3))
            :source (format "%s" (flymake-diagnostic-backend diag))
            :message (flymake-diagnostic-text diag))))

;; Before and after each edit the server asks what Emacs shows for the file, from every
;; Flymake backend (linters and eglot alike), so the agent learns what its edit broke.
;; null: no buffer visits the file, or Flymake is off in it (the agent then claims nothing).
(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql agentLsp/diagnostics)) &key uri &allow-other-keys)
  (let* ((path (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))
         (buf (find-buffer-visiting path)))
    (if (not (and buf (buffer-local-value 'flymake-mode buf)))
        (list :diagnostics nil)
      (with-current-buffer buf
        (save-restriction
          (widen)
          (list :diagnostics (vconcat (mapcar #'agent-lsp--lsp-diagnostic (flymake-diagnostics)))))))))

(defun agent-lsp-fix ()
  "Fix with agent: a diagnostic on this line, from any Flymake backend (linters too).
eglot's own code actions only carry this server's diagnostics; this passes all of them."
  (interactive)
  (let* ((diags (flymake-diagnostics (line-beginning-position) (line-end-position)))
         (items (mapcar (lambda (d) (cons (flymake-diagnostic-text d) d)) diags))
         (diag (cond ((null items) (user-error "No diagnostic on this line"))
                     ((null (cdr items)) (cdar items))
                     (t (cdr (assoc (completing-read "Fix with agent: " items nil t) items))))))
    (agent-lsp--execute 'agentLsp.fixDiagnostic
                        (list :uri (agent-lsp--uri buffer-file-name)
                              :diagnostic (agent-lsp--lsp-diagnostic diag)))
    (message "agent-lsp: working on it; the answer will show here")))

(defun agent-lsp-cancel ()
  "Cancel the agent's running task."
  (interactive)
  (agent-lsp--execute 'agentLsp.cancel))

(defun agent-lsp-new-session ()
  "Forget the conversation."
  (interactive)
  (agent-lsp--execute 'agentLsp.newSession))

(with-eval-after-load 'eglot
  (define-key eglot-mode-map (kbd "C-c a a") #'eglot-code-actions)
  (define-key eglot-mode-map (kbd "C-c a f") #'agent-lsp-fix)
  (define-key eglot-mode-map (kbd "C-c a t") #'agent-lsp-task)
  (define-key eglot-mode-map (kbd "C-c a c") #'agent-lsp-cancel))
