;;; agent-lsp-lsp-mode.el --- The agent-lsp coding agent as an lsp-mode add-on -*- lexical-binding: t -*-

;; Copyright (C) 2026 agent-lsp contributors

;; Author: agent-lsp contributors
;; Maintainer: agent-lsp contributors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (lsp-mode "8.0.0"))
;; Keywords: tools, languages, convenience
;; URL: https://github.com/agent-lsp/agent-lsp

;; This file is not part of GNU Emacs.

;; SPDX-License-Identifier: MIT

;;; Commentary:

;; agent-lsp is a coding agent behind the Language Server Protocol.  This
;; package registers it with lsp-mode as an add-on server (`:add-on? t'),
;; so it runs beside the buffer's own language server (ruff, pyright, ...)
;; or alone:
;;
;;   (require 'agent-lsp-lsp-mode)   ; then M-x lsp in a buffer, as usual
;;
;; The server reads its endpoint from the environment Emacs starts in:
;; AGENT_BASE_URL (an OpenAI-compatible .../v1), AGENT_MODEL,
;; AGENT_API_KEY; `agent-lsp' must be on `exec-path' (see
;; `agent-lsp-lsp-mode-command').
;;
;; What a plain `lsp-register-client' for agent-lsp gets wrong, and what
;; this package does instead:
;;
;; - lsp-mode runs `workspace/executeCommand' synchronously with a 10 s
;;   timeout (`lsp-response-timeout') and sends a command to every server
;;   that executes commands.  Here every agentLsp.* command goes to
;;   agent-lsp alone, asynchronously (an action handler), so Emacs is never
;;   blocked, nothing is cancelled at 10 s, and ruff never sees an agentLsp.*
;;   command.  The server also answers commands at once (detachCommands).
;; - lsp-mode sends the didChange of an edit a server asked for
;;   (`workspace/applyEdit') to that server only.  Here such edits, and the
;;   questions the agent asks, are handled outside the server's message
;;   handler, so every server of the buffer hears the change.
;; - The server may ask Emacs to save a buffer it edited
;;   (agentLsp/saveDocument), so the buffer and the file stay in step.
;;
;; Each agent edit waits as an "agent edit" diagnostic on the changed lines
;; until you pick "Accept agent edit" or "Reject agent edit" from the code
;; actions (`lsp-execute-code-action', or `agent-lsp-lsp-mode-accept' /
;; `agent-lsp-lsp-mode-reject').  Commands the agent wants to run are asked
;; in the minibuffer.  Commands of this package are under
;; `agent-lsp-lsp-mode-keymap-prefix' (C-c a) in lsp-mode buffers.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'lsp-mode)

(defgroup agent-lsp-lsp-mode nil
  "The agent-lsp coding agent as an lsp-mode add-on server."
  :group 'lsp-mode
  :prefix "agent-lsp-lsp-mode-"
  :link '(url-link "https://github.com/agent-lsp/agent-lsp"))

(defcustom agent-lsp-lsp-mode-command '("agent-lsp" "serve")
  "The command that starts the agent-lsp language server, as a list.
Give the full path of `agent-lsp' when it is not on variable `exec-path'."
  :type '(repeat string)
  :group 'agent-lsp-lsp-mode)

(defcustom agent-lsp-lsp-mode-major-modes '(prog-mode)
  "Major modes (and the modes derived from them) whose buffers get agent-lsp."
  :type '(repeat symbol)
  :group 'agent-lsp-lsp-mode)

(defcustom agent-lsp-lsp-mode-settings nil
  "More agent-lsp settings, as a plist of the camelCase keys of docs/protocol.md.
For example (:model \"gpt-4o\" :maxSteps 30).  Sent as initializationOptions."
  :type 'plist
  :group 'agent-lsp-lsp-mode)

(defcustom agent-lsp-lsp-mode-keymap-prefix "C-c a"
  "The key under which `agent-lsp-lsp-mode-command-map' is bound in `lsp-mode-map'.
nil binds nothing.  Set it before this package is loaded."
  :type '(choice (const :tag "None" nil) string)
  :group 'agent-lsp-lsp-mode)

(defconst agent-lsp-lsp-mode-server-id 'agent-lsp
  "The lsp-mode server id of agent-lsp.")

(defconst agent-lsp-lsp-mode--commands
  '("agentLsp.runTask" "agentLsp.fixDiagnostic" "agentLsp.cancel" "agentLsp.newSession"
    "agentLsp.acceptEdit" "agentLsp.rejectEdit" "agentLsp.listSessions" "agentLsp.showSession"
    "agentLsp.undoTask" "agentLsp.showMemory")
  "The server's commands.
They go to agent-lsp only, never to the buffer's other servers.")

;;; Which connection

(defun agent-lsp-lsp-mode--ours-p (workspace)
  "Is WORKSPACE an agent-lsp connection?"
  (eq (lsp--client-server-id (lsp--workspace-client workspace)) agent-lsp-lsp-mode-server-id))

(defun agent-lsp-lsp-mode--workspace ()
  "The agent-lsp connection of the current buffer, else the session's first one."
  (or (cl-find-if #'agent-lsp-lsp-mode--ours-p lsp--buffer-workspaces)
      (cl-find-if #'agent-lsp-lsp-mode--ours-p (lsp--session-workspaces (lsp-session)))))

;;; Commands to the server: asynchronous, and to agent-lsp alone

(defun agent-lsp-lsp-mode--error-text (err)
  "The one line to show for ERR, an LSP error answer (or a list of them)."
  (let ((e (if (and (listp err) (not (lsp-json-error? err))) (car err) err)))
    (if (lsp-json-error? e) (lsp:json-error-message e) (format "%s" e))))

(defun agent-lsp-lsp-mode-execute (command &optional arguments callback)
  "Send COMMAND with ARGUMENTS (a vector) to agent-lsp, without waiting for it.
CALLBACK, if given, gets the result.  lsp-mode's own way would wait up to
`lsp-response-timeout' with Emacs blocked, and would send the command to
every server of the buffer."
  (let ((workspace (or (agent-lsp-lsp-mode--workspace)
                       (user-error "No agent-lsp in this buffer (M-x lsp starts it)"))))
    (with-lsp-workspace workspace
      (lsp-request-async "workspace/executeCommand"
                         (if arguments
                             (list :command command :arguments arguments)
                           (list :command command))
                         (lambda (result) (when callback (funcall callback result)))
                         :mode 'detached
                         :error-handler
                         (lambda (err)
                           (message "The agent-lsp server answered: %s" (agent-lsp-lsp-mode--error-text err)))))))

(defun agent-lsp-lsp-mode--action (action)
  "Run ACTION, a Command of a code action, on agent-lsp alone."
  (agent-lsp-lsp-mode-execute (lsp:command-command action) (lsp:command-arguments? action)))

;;; Requests from the server, answered outside lsp-mode's message handler

(defmacro agent-lsp-lsp-mode--later (&rest body)
  "Run BODY from a timer: out of the process filter, with no current workspace.
lsp-mode sends the didChange of an edit made while it handles a server's
message to that server only; made here, every server of the buffer hears it.
A question asked here does not hold up the reading of the server's output."
  (declare (indent 0) (debug t))
  `(run-at-time 0 nil (lambda () (let ((lsp--cur-workspace nil)) ,@body))))

(defun agent-lsp-lsp-mode--apply-edit (_workspace params callback)
  "Apply the WorkspaceEdit in PARAMS so that every server hears it.
CALLBACK answers the server."
  (agent-lsp-lsp-mode--later
    (funcall callback
             (condition-case err
                 (progn (lsp--apply-workspace-edit (lsp:apply-workspace-edit-params-edit params)
                                                   'server-requested)
                        (list :applied t))
               (error (list :applied :json-false :failureReason (error-message-string err)))))))

(defun agent-lsp-lsp-mode--choose (_workspace params callback)
  "Ask the question in PARAMS (window/showMessageRequest).
CALLBACK gets the title picked.
\\[keyboard-quit] answers nothing, which the server takes as a no."
  (agent-lsp-lsp-mode--later
    (let* ((titles (mapcar #'lsp:message-action-item-title
                           (append (lsp:show-message-request-params-actions? params) nil)))
           (prompt (concat (lsp:show-message-request-params-message params) " "))
           (choice (and titles
                        (condition-case nil (completing-read prompt titles nil t)
                          (quit nil)))))
      (funcall callback (if (member choice titles) (list :title choice) nil)))))

(defun agent-lsp-lsp-mode--ask (_workspace params callback)
  "Put the agent's question in PARAMS (agentLsp/askUser) to the person.
CALLBACK answers the server."
  (agent-lsp-lsp-mode--later
    (let ((answer (condition-case nil
                      (read-string (format "agent asks: %s " (lsp-get params :question)))
                    (quit nil))))
      (funcall callback (list :answer answer)))))

(defun agent-lsp-lsp-mode--save (_workspace params callback)
  "Save the buffer of the file in PARAMS (agentLsp/saveDocument).
CALLBACK gets whether it did.
Emacs saving its own buffer keeps its modified flag and file time right; the
server writing the file behind the buffer would not."
  (agent-lsp-lsp-mode--later
    (let* ((path (lsp--uri-to-path (lsp-get params :uri)))
           (buffer (find-buffer-visiting path))
           (saved (and buffer
                       (condition-case nil
                           (with-current-buffer buffer
                             (let ((inhibit-message t)) (save-buffer))
                             (not (buffer-modified-p)))
                         (error nil)))))
      (funcall callback (list :saved (if saved t :json-false))))))

(defun agent-lsp-lsp-mode--diagnostics (_workspace params)
  "Every other server's diagnostics of the file in PARAMS (agentLsp/diagnostics)."
  (let ((path (lsp--fix-path-casing (lsp--uri-to-path (lsp-get params :uri))))
        (items nil))
    (dolist (workspace (lsp--session-workspaces (lsp-session)))
      (unless (agent-lsp-lsp-mode--ours-p workspace)
        (setq items (append items (gethash path (lsp--workspace-diagnostics workspace))))))
    (list :diagnostics (vconcat items))))

;;; The client

(defun agent-lsp-lsp-mode--activate-p (_file mode)
  "Does a buffer in major MODE get agent-lsp?"
  (apply #'provided-mode-derived-p mode agent-lsp-lsp-mode-major-modes))

(defun agent-lsp-lsp-mode--initialization-options ()
  "What the server is told at start: commands answer at once, plus your settings."
  (append (list :detachCommands t) agent-lsp-lsp-mode-settings))

(defun agent-lsp-lsp-mode--table (pairs)
  "A hash table of PAIRS, a list of (KEY . VALUE)."
  (let ((table (make-hash-table :test 'equal)))
    (dolist (pair pairs table)
      (puthash (car pair) (cdr pair) table))))

(defun agent-lsp-lsp-mode--make-client ()
  "The lsp-mode client of agent-lsp."
  (make-lsp-client
   :new-connection (lsp-stdio-connection (lambda () agent-lsp-lsp-mode-command))
   :activation-fn #'agent-lsp-lsp-mode--activate-p
   :server-id agent-lsp-lsp-mode-server-id
   :add-on? t
   :priority -1
   :initialization-options #'agent-lsp-lsp-mode--initialization-options
   :custom-capabilities
   '((experimental . ((agentLsp . ((saveDocument . t) (askUser . t) (diagnostics . t))))))
   :action-handlers
   (agent-lsp-lsp-mode--table
    (mapcar (lambda (c) (cons c #'agent-lsp-lsp-mode--action)) agent-lsp-lsp-mode--commands))
   :request-handlers
   (agent-lsp-lsp-mode--table `(("agentLsp/diagnostics" . ,#'agent-lsp-lsp-mode--diagnostics)))
   :async-request-handlers
   (agent-lsp-lsp-mode--table
    `(("workspace/applyEdit" . ,#'agent-lsp-lsp-mode--apply-edit)
      ("window/showMessageRequest" . ,#'agent-lsp-lsp-mode--choose)
      ("agentLsp/askUser" . ,#'agent-lsp-lsp-mode--ask)
      ("agentLsp/saveDocument" . ,#'agent-lsp-lsp-mode--save)))))

(lsp-register-client (agent-lsp-lsp-mode--make-client))

;;; Commands for the person

(defun agent-lsp-lsp-mode--uri ()
  "The current buffer's URI, or nil when it visits no file."
  (and buffer-file-name (lsp--buffer-uri)))

(defun agent-lsp-lsp-mode--started (result)
  "Say so when RESULT (of a task command) is not a started task."
  (let ((status (and result (lsp-get result :status))))
    (when (and status (not (member status '("started" "done"))))
      (message "The agent-lsp task: %s" status))))

;;;###autoload
(defun agent-lsp-lsp-mode-task (task)
  "Give the agent TASK about the current file (agentLsp.runTask)."
  (interactive (list (read-string "Agent task: ")))
  (when (string-empty-p (string-trim task))
    (user-error "Give the agent something to do"))
  (let ((uri (agent-lsp-lsp-mode--uri)))
    (agent-lsp-lsp-mode-execute "agentLsp.runTask"
                                (vector (if uri (list :task task :uri uri) (list :task task)))
                                #'agent-lsp-lsp-mode--started)))

(defun agent-lsp-lsp-mode--line-diagnostics ()
  "The other servers' diagnostics on the current line."
  (cl-remove-if (lambda (d) (equal (lsp:diagnostic-source? d) "agent-lsp"))
                (append (lsp-cur-line-diagnostics) nil)))

;;;###autoload
(defun agent-lsp-lsp-mode-fix ()
  "Ask the agent to fix a diagnostic on this line (agentLsp.fixDiagnostic).
The diagnostic may come from any server of the buffer."
  (interactive)
  (let* ((diagnostics (or (agent-lsp-lsp-mode--line-diagnostics)
                          (user-error "No diagnostic on this line")))
         (names (mapcar (lambda (d) (lsp:diagnostic-message d)) diagnostics))
         (diagnostic (if (cdr diagnostics)
                         (nth (cl-position (completing-read "Fix: " names nil t) names :test #'equal)
                              diagnostics)
                       (car diagnostics))))
    (agent-lsp-lsp-mode-execute "agentLsp.fixDiagnostic"
                                (vector (list :uri (agent-lsp-lsp-mode--uri) :diagnostic diagnostic))
                                #'agent-lsp-lsp-mode--started)))

;;;###autoload
(defun agent-lsp-lsp-mode-cancel ()
  "Cancel the agent's running task (agentLsp.cancel)."
  (interactive)
  (agent-lsp-lsp-mode-execute
   "agentLsp.cancel" nil
   (lambda (result)
     (message (if (and result (lsp-get result :cancelled))
                  "Cancelling the agent's task"
                "No agent task is running")))))

;;;###autoload
(defun agent-lsp-lsp-mode-accept ()
  "Accept the agent edit waiting in this buffer (agentLsp.acceptEdit)."
  (interactive)
  (agent-lsp-lsp-mode-execute "agentLsp.acceptEdit" (vector (list :uri (agent-lsp-lsp-mode--uri)))))

;;;###autoload
(defun agent-lsp-lsp-mode-reject ()
  "Reject the agent edit waiting in this buffer (agentLsp.rejectEdit)."
  (interactive)
  (agent-lsp-lsp-mode-execute "agentLsp.rejectEdit" (vector (list :uri (agent-lsp-lsp-mode--uri)))))

;;;###autoload
(defun agent-lsp-lsp-mode-new-session ()
  "Start a new conversation with the agent (agentLsp.newSession)."
  (interactive)
  (agent-lsp-lsp-mode-execute "agentLsp.newSession"))

;;;###autoload
(defun agent-lsp-lsp-mode-undo ()
  "Take back the agent's last task (agentLsp.undoTask)."
  (interactive)
  (agent-lsp-lsp-mode-execute "agentLsp.undoTask"))

(defvar agent-lsp-lsp-mode-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "t") #'agent-lsp-lsp-mode-task)
    (define-key map (kbd "f") #'agent-lsp-lsp-mode-fix)
    (define-key map (kbd "a") #'lsp-execute-code-action)
    (define-key map (kbd "y") #'agent-lsp-lsp-mode-accept)
    (define-key map (kbd "n") #'agent-lsp-lsp-mode-reject)
    (define-key map (kbd "c") #'agent-lsp-lsp-mode-cancel)
    (define-key map (kbd "s") #'agent-lsp-lsp-mode-new-session)
    (define-key map (kbd "u") #'agent-lsp-lsp-mode-undo)
    map)
  "Keys of agent-lsp in lsp-mode buffers, under `agent-lsp-lsp-mode-keymap-prefix'.")

(when agent-lsp-lsp-mode-keymap-prefix
  (define-key lsp-mode-map (kbd agent-lsp-lsp-mode-keymap-prefix) agent-lsp-lsp-mode-command-map))

(provide 'agent-lsp-lsp-mode)

;;; agent-lsp-lsp-mode.el ends here
