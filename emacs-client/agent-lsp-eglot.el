;;; agent-lsp-eglot.el --- agent-lsp through eglot  -*- lexical-binding: t -*-

;; This file is not part of GNU Emacs.

;;; Commentary:

;; What `agent-lsp-setup' does with eglot (1.9 and later): an entry in
;; `eglot-server-programs' for `agent-lsp-modes' (and, through rass, for
;; `agent-lsp-beside'), `eglot-ensure' in those modes, and a server class
;; of its own whose methods answer workspace/applyEdit with a diff preview,
;; agentLsp/saveDocument by saving the buffer and agentLsp/diagnostics
;; with every Flymake diagnostic.
;;
;; detachCommands: eglot waits for `workspace/executeCommand'
;; synchronously (10 s timeout, Emacs blocked meanwhile); with it the
;; server answers at once and the agent's answer arrives as a message.

;;; Code:

(require 'agent-lsp)
(require 'eglot)
(require 'cl-lib)

;; eglot's internals differ between 1.9 and later: use the public name when there is one.
(declare-function eglot-uri-to-path "eglot")
(declare-function eglot-path-to-uri "eglot")

(defclass agent-lsp-server (eglot-lsp-server) ()
  :documentation "agent-lsp: the coding agent behind LSP.")

(defun agent-lsp-eglot--path (uri)
  "The file name of URI."
  (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))

(defun agent-lsp-eglot--apply (edits)
  "Apply the LSP text EDITS in the current buffer, as eglot does."
  (eglot--apply-text-edits (append edits nil)))

(defun agent-lsp-eglot--diagnostic (diag)
  "The Flymake diagnostic DIAG as an LSP Diagnostic.
eglot's own diagnostics keep the original the server sent."
  (or (let ((data (flymake-diagnostic-data diag)))
        (and (listp data) (cdr (assoc 'eglot-lsp-diag data))))
      (agent-lsp-lsp-diagnostic diag #'eglot--pos-to-lsp-position)))

(defun agent-lsp-eglot--server ()
  "The agent-lsp server of the current buffer, or nil."
  (let ((server (ignore-errors (eglot-current-server))))
    (and (cl-typep server 'agent-lsp-server) server)))

(defun agent-lsp-eglot--execute (command arguments)
  "Send COMMAND with ARGUMENTS through eglot.
Return nil when eglot does not manage agent-lsp in this buffer."
  (let ((server (agent-lsp-eglot--server)))
    (when server
      (eglot-execute-command server command arguments)
      t)))

(cl-defmethod eglot-client-capabilities :around ((_server agent-lsp-server))
  "Return eglot's capabilities with what the agent-lsp set-up supports.
It previews annotated edits, saves on request and answers diagnostics,
so the server sends each edit with needsConfirmation instead of holding
it as diagnostics (its inline review)."
  ;; eglot's own lists are constants: never edit them
  (let* ((caps (copy-tree (cl-call-next-method)))
         (workspace (plist-get caps :workspace)))
    (setq workspace (plist-put workspace :workspaceEdit
                               (plist-put (plist-get workspace :workspaceEdit)
                                          :changeAnnotationSupport '(:groupsOnLabel t))))
    (setq caps (plist-put caps :workspace workspace))
    (plist-put caps :experimental '(:agentLsp (:saveDocument t :diagnostics t)))))

(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql workspace/applyEdit)) &key edit label &allow-other-keys)
  "The agent's EDIT (called LABEL): show the diff, ask, close the diff.
A no leaves buffer and file alone."
  (if (and (agent-lsp-needs-confirmation-p edit)
           (not (agent-lsp-ask-with-preview edit label #'agent-lsp-eglot--path #'agent-lsp-eglot--apply)))
      (list :applied :json-false :failureReason "declined in Emacs")
    ;; visit every file first: eglot asks again about files without a buffer
    (dolist (item (agent-lsp-text-edits edit #'agent-lsp-eglot--path)) (find-file-noselect (car item)))
    (eglot--apply-workspace-edit edit nil)
    (list :applied t)))

(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql agentLsp/saveDocument)) &key uri &allow-other-keys)
  "Save the buffer of URI (see `agent-lsp-save-file-buffer')."
  (list :saved (if (agent-lsp-save-file-buffer (agent-lsp-eglot--path uri)) t :json-false)))

(cl-defmethod eglot-handle-request
  ((_server agent-lsp-server) (_method (eql agentLsp/diagnostics)) &key uri &allow-other-keys)
  "Every Flymake diagnostic of URI's buffer (see `agent-lsp-file-diagnostics')."
  (list :diagnostics (agent-lsp-file-diagnostics (agent-lsp-eglot--path uri) #'agent-lsp-eglot--diagnostic)))

(defconst agent-lsp-eglot--here
  (file-name-directory (or load-file-name buffer-file-name default-directory))
  "The folder this file was loaded from (a checkout's emacs-client/).")

(defun agent-lsp-rass-preset-file ()
  "The rass preset file: `agent-lsp-rass-preset', or the one beside this file.
A `package-install-file' of the folder copies only its .el files: then
set `agent-lsp-rass-preset' to emacs-client/rass-agent-lsp.py of a
checkout.  nil when there is none (rass then waits only 3 s)."
  (or agent-lsp-rass-preset
      (let ((file (expand-file-name "rass-agent-lsp.py" agent-lsp-eglot--here)))
        (if (file-readable-p file)
            file
          (display-warning 'agent-lsp
                           (concat "no rass preset: set `agent-lsp-rass-preset' to "
                                   "emacs-client/rass-agent-lsp.py of an agent-lsp checkout"))
          nil))))

(defun agent-lsp-eglot--maybe-start ()
  "Start eglot in a buffer of `agent-lsp-modes' or `agent-lsp-beside'.
A derived mode runs its parent's hook too: hence the check."
  (when (or (memq major-mode agent-lsp-modes) (assq major-mode agent-lsp-beside))
    (eglot-ensure)))

(defun agent-lsp-eglot--ours-p (entry)
  "Non-nil when `agent-lsp-eglot-setup' added ENTRY to `eglot-server-programs'."
  (and (consp (cdr entry)) (eq (cadr entry) 'agent-lsp-server)))

(defun agent-lsp-eglot-setup ()
  "Add agent-lsp to eglot: server programs, mode hooks, keys, the command path.
Entries added later come first in `eglot-server-programs', so the rass
entries of `agent-lsp-beside' win over the plain one.  Your server goes
first in rass: it sends requests only one server answers (hover,
signature help) to the first."
  (setq eglot-server-programs (cl-remove-if #'agent-lsp-eglot--ours-p eglot-server-programs))
  (add-to-list 'eglot-server-programs
               `(,agent-lsp-modes . (agent-lsp-server ,@agent-lsp-program
                                                      :initializationOptions (:detachCommands t))))
  (dolist (entry agent-lsp-beside)
    (add-to-list 'eglot-server-programs
                 `(,(car entry) . (agent-lsp-server "rass" ,@(let ((p (agent-lsp-rass-preset-file))) (and p (list p)))
                                                    "--" ,@(cdr entry) "--" ,@agent-lsp-program
                                                    :initializationOptions
                                                    (:rass (:agent-lsp (:detachCommands t)))))))
  (dolist (mode (delete-dups (append (mapcar #'car agent-lsp-beside) agent-lsp-modes)))
    (add-hook (intern (format "%s-hook" mode)) #'agent-lsp-eglot--maybe-start))
  (add-hook 'agent-lsp-execute-functions #'agent-lsp-eglot--execute)
  (setq agent-lsp-fix-function #'agent-lsp-eglot--diagnostic)
  (when agent-lsp-keymap-prefix
    (define-key agent-lsp-command-map (kbd "a") #'eglot-code-actions)
    (define-key eglot-mode-map (kbd agent-lsp-keymap-prefix) agent-lsp-command-map)))

(provide 'agent-lsp-eglot)
;;; agent-lsp-eglot.el ends here
