;;; emacs_driver.el --- drive a real interactive Emacs + eglot like a person, for tests/editors  -*- lexical-binding: t -*-
;;
;; Emacs runs as `emacs -nw FILE -l emacs_driver.el' on a pseudo-terminal, with the
;; documented docs/editors/eglot.el in its init file. The plan in $AGENT_TEST_PLAN
;; (JSON) runs from a timer, one step at a time, so the real command loop runs in
;; between: keys are pushed as input events (`C-c a a', `M-x agent-lsp-task RET ...',
;; `C-x C-s'), idle timers fire (eglot sends didChange from one), prompts are the real
;; ones. Each prompt gets its scripted answer typed into `unread-command-events' just
;; before it reads, and is recorded. The result goes to the plan's result file as JSON.

(require 'json)
(require 'cl-lib)
(require 'subr-x)

(defvar drv-plan
  (json-parse-string
   (with-temp-buffer (insert-file-contents (getenv "AGENT_TEST_PLAN")) (buffer-string))
   :object-type 'plist :array-type 'list :null-object nil :false-object nil))
(defvar drv-t0 (float-time))
(defvar drv-result (make-hash-table :test 'equal))
(defvar drv-prompts nil)
(defvar drv-errors nil)
(defvar drv-steps (plist-get drv-plan :steps))
(defvar drv-done-steps nil)
(defvar drv-picks (plist-get drv-plan :pick))
(defvar drv-confirms (plist-get drv-plan :confirm))
(defvar drv-file-buffer nil)
(defvar drv-step-started nil)
(defvar drv-timer nil)

(defun drv-ms () (round (* 1000 (- (float-time) drv-t0))))
(defun drv-put (key value) (puthash key value drv-result))

(defun drv-keys (keys)
  "Type KEYS (a `kbd' string, or a list of events) after whatever is pending."
  (setq unread-command-events
        (append unread-command-events
                (if (stringp keys) (listify-key-sequence (kbd keys)) keys))))

(defun drv-type-literally (text)
  "Events that insert TEXT in a minibuffer (SPC and ? would complete or help: quote them)."
  (cl-loop for c across text
           append (if (memq c '(?\s ??)) (list ?\C-q c) (list c))))

(defun drv-record (kind prompt want)
  (push (list :kind kind :title (substring-no-properties (format "%s" prompt))
              :want (or want :null) :t (drv-ms))
        drv-prompts))

;; --- the person's answers, typed into the real prompts ---------------------------

(defun drv-screen ()
  "What is on screen: the visible text of every window, with its buffer's name."
  (vconcat
   (mapcar (lambda (w)
             (with-current-buffer (window-buffer w)
               (list :name (buffer-name) :mode (symbol-name major-mode)
                     :text (buffer-substring-no-properties (window-start w) (window-end w t)))))
           (window-list nil 'no-minibuf))))

(defun drv-before-y-or-n-p (prompt &rest _)
  (let ((want (pop drv-confirms)))
    (drv-record "confirm" prompt want)
    (plist-put (car drv-prompts) :screen (drv-screen))
    (drv-keys (if want (list (aref want 0)) (list ?\C-g)))))
(advice-add 'y-or-n-p :before #'drv-before-y-or-n-p)

(defun drv-before-yes-or-no-p (prompt &rest _)
  ;; Never expected: "changed since visited; save anyway?" and the like. Say no.
  (drv-record "yes-or-no" prompt "no")
  (drv-keys (append (drv-type-literally "no") (list ?\r))))
(advice-add 'yes-or-no-p :before #'drv-before-yes-or-no-p)

(defun drv-before-supersession (&rest args)
  (drv-record "supersession" (format "%S" args) nil))
(advice-add 'ask-user-about-supersession-threat :before #'drv-before-supersession)

(defun drv-before-completing-read (prompt collection &optional predicate _require-match initial &rest _)
  (unless (string-prefix-p "M-x" prompt) ; the person's own M-x, typed by a step
    (let* ((want (pop drv-picks))
           (items (all-completions "" collection predicate))
           (choice (and want (cl-find-if (lambda (s) (string-search want s)) items)))
           (initial (if (consp initial) (car initial) (or initial ""))))
      (push (list :kind "list" :title (substring-no-properties prompt) :items (vconcat items)
                  :want (or want :null) :choice (or choice :null) :t (drv-ms))
            drv-prompts)
      ;; eglot pre-fills the first action: rub it out, type the choice, RET.
      (drv-keys (if choice
                    (append (list ?\C-e) (make-list (length initial) ?\d)
                            (drv-type-literally choice) (list ?\r))
                  (list ?\C-g))))))
(advice-add 'completing-read :before #'drv-before-completing-read)

;; --- observing ------------------------------------------------------------------

(defun drv-messages ()
  (with-current-buffer (messages-buffer) (buffer-substring-no-properties (point-min) (point-max))))

(defun drv-buffer-state ()
  (with-current-buffer drv-file-buffer
    (list :text (buffer-substring-no-properties (point-min) (point-max))
          :modified (if (buffer-modified-p) t :false)
          :modtime_ok (if (verify-visited-file-modtime) t :false)
          :version (if (boundp 'eglot--versioned-identifier) eglot--versioned-identifier -1))))

(defun drv-server ()
  (and (buffer-live-p drv-file-buffer)
       (with-current-buffer drv-file-buffer
         (and (bound-and-true-p eglot--managed-mode) (eglot-current-server)))))

(defun drv-idle-p ()
  "The person can act: no keys pending, no prompt open."
  (and (null unread-command-events) (zerop (minibuffer-depth))))

;; --- a linter's diagnostics, as any Flymake backend reports them -----------------

(defvar-local drv-lint-items nil)
(defun drv-lint-backend (report &rest _)
  (funcall report
           (mapcar (lambda (it)
                     (save-excursion
                       (goto-char (point-min))
                       (forward-line (plist-get it :lnum))
                       (let* ((bol (point))
                              (beg (+ bol (plist-get it :col)))
                              (end (+ bol (or (plist-get it :end_col) (1+ (plist-get it :col))))))
                         (flymake-make-diagnostic (current-buffer) beg end :warning
                                                  (plist-get it :message)))))
                   drv-lint-items)))

;; A linter that checks again after every change (Flymake runs it after an idle pause):
;; the items of the first rule whose :contains the buffer holds, else :default.
(defvar-local drv-lint-rules nil)
(defun drv-rules-backend (report &rest _)
  (let* ((text (buffer-substring-no-properties (point-min) (point-max)))
         (rule (cl-find-if (lambda (r) (string-search (plist-get r :contains) text))
                           (plist-get drv-lint-rules :rules)))
         (items (if rule (plist-get rule :items) (plist-get drv-lint-rules :default))))
    (funcall report
             (mapcar (lambda (it)
                       (save-excursion
                         (goto-char (point-min))
                         (forward-line (plist-get it :lnum))
                         (let* ((bol (point))
                                (beg (+ bol (plist-get it :col)))
                                (end (+ bol (or (plist-get it :end_col) (1+ (plist-get it :col))))))
                           (flymake-make-diagnostic (current-buffer) beg end
                                                    (if (eql (plist-get it :severity) 1) :error :warning)
                                                    (plist-get it :message)))))
                     items))))

;; --- steps ----------------------------------------------------------------------
;; Each returns non-nil when done; a waiting step is called again on the next tick.

(defun drv-step-attach (s)
  (when (> (- (float-time) drv-step-started) (/ (or (plist-get s :ms) 15000) 1000.0))
    (error "agent-lsp did not attach"))
  (let ((server (drv-server)))
    (and server (cl-typep server 'agent-lsp-server))))

(defun drv-step-diagnostics (s)
  (with-current-buffer drv-file-buffer
    (unless drv-lint-items
      (setq drv-lint-items (plist-get s :items))
      (add-hook 'flymake-diagnostic-functions #'drv-lint-backend nil t)
      (flymake-start))
    (when (> (- (float-time) drv-step-started) 5) (error "the linter's diagnostics did not show"))
    (cl-some (lambda (d) (eq (flymake-diagnostic-backend d) 'drv-lint-backend))
             (flymake-diagnostics))))

(defun drv-step-cursor (s)
  "Put the cursor of the window showing the file at :line (1-based), :col."
  (with-selected-window (or (get-buffer-window drv-file-buffer) (error "the file is not shown"))
    (goto-char (point-min))
    (forward-line (1- (plist-get s :line)))
    (forward-char (or (plist-get s :col) 0)))
  t)

(defun drv-step-keys (s)
  "Type :keys (a `kbd' string), then :text and RET if given (an answer to a prompt)."
  (drv-keys (append (listify-key-sequence (kbd (plist-get s :keys)))
                    (when-let ((text (plist-get s :text)))
                      (append (string-to-list text) (list ?\r)))))
  t)

(defun drv-step-wait-message (s)
  (when (> (- (float-time) drv-step-started) (/ (or (plist-get s :ms) 20000) 1000.0))
    (error "no message containing %S" (plist-get s :text)))
  (string-search (plist-get s :text) (drv-messages)))

(defun drv-step-sleep (s)
  (> (- (float-time) drv-step-started) (/ (plist-get s :ms) 1000.0)))

(defun drv-step-snapshot (s)
  (let ((name (or (plist-get s :name) "buffer")))
    (drv-put name (drv-buffer-state))
    (drv-put (concat name "_windows") (length (window-list nil 'no-minibuf))))
  t)

(defvar drv-responsive nil)
(defun drv-step-watch (s)
  "Record when the command loop is next idle and when a key typed now gets handled."
  (let ((start (drv-ms)) (name (or (plist-get s :name) "watch")))
    (setq drv-responsive (list :start start))
    (run-with-idle-timer 0.3 nil (lambda () (setq drv-responsive (plist-put drv-responsive :idle (drv-ms)))))
    (drv-put name drv-responsive)
    t))

(defun drv-step-watch-report (s)
  (drv-put (or (plist-get s :name) "watch") drv-responsive)
  t)

(defun drv-step-lint-rules (s)
  (with-current-buffer drv-file-buffer
    (unless drv-lint-rules
      (setq drv-lint-rules s)
      (add-hook 'flymake-diagnostic-functions #'drv-rules-backend nil t)
      (flymake-start))
    (when (> (- (float-time) drv-step-started) 5) (error "the rules linter's diagnostics did not show"))
    (cl-some (lambda (d) (eq (flymake-diagnostic-backend d) 'drv-rules-backend))
             (flymake-diagnostics))))

(defconst drv-step-functions
  '(("attach" . drv-step-attach) ("diagnostics" . drv-step-diagnostics)
    ("cursor" . drv-step-cursor) ("keys" . drv-step-keys)
    ("wait_message" . drv-step-wait-message) ("sleep" . drv-step-sleep)
    ("snapshot" . drv-step-snapshot) ("watch" . drv-step-watch)
    ("watch_report" . drv-step-watch-report) ("lint_rules" . drv-step-lint-rules)))

;; --- running --------------------------------------------------------------------

(defun drv-finish (&optional code)
  (when drv-timer (cancel-timer drv-timer))
  (condition-case err
      (progn
        (drv-put "prompts" (vconcat (reverse drv-prompts)))
        (drv-put "steps" (vconcat (reverse drv-done-steps)))
        (drv-put "errors" (vconcat (reverse drv-errors)))
        (drv-put "messages" (drv-messages))
        (drv-put "emacs" emacs-version)
        (drv-put "unanswered" (list :pick (vconcat drv-picks) :confirm (vconcat drv-confirms)))
        (when (buffer-live-p drv-file-buffer) (drv-put "final" (drv-buffer-state)))
        (let ((server (ignore-errors (drv-server))))
          (when server
            (with-current-buffer (jsonrpc-events-buffer server)
              (write-region nil nil (concat (file-name-directory (plist-get drv-plan :result)) "eglot-events.log")
                            nil 'quiet))))
        (with-temp-file (plist-get drv-plan :result)
          (insert (json-serialize drv-result :null-object :null :false-object :false))))
    (error (with-temp-file (plist-get drv-plan :result)
             (insert (format "{\"errors\": [%S]}" (format "driver could not write its result: %S" err))))))
  (kill-emacs (or code 0)))

(defun drv-tick ()
  (condition-case err
      (let* ((s (car drv-steps))
             (name (plist-get s :step)))
        (cond
         ((null s) (drv-finish 0))
         ;; one action at a time, only when the person could act
         ((and (not drv-step-started) (not (drv-idle-p))) nil)
         (t
          (unless drv-step-started
            (setq drv-step-started (float-time))
            (drv-put "step" name))
          (when (funcall (cdr (or (assoc name drv-step-functions) (error "unknown step %s" name))) s)
            (push (list :step name :ok t :t (drv-ms)) drv-done-steps)
            (setq drv-steps (cdr drv-steps) drv-step-started nil)))))
    (error
     (push (format "%s: %s" (plist-get (car drv-steps) :step) (error-message-string err)) drv-errors)
     (push (list :step (plist-get (car drv-steps) :step) :ok :false :t (drv-ms)) drv-done-steps)
     (drv-finish 2))))

(run-with-timer (plist-get drv-plan :timeout) nil
                (lambda ()
                  (drv-put "timed_out" (or (gethash "step" drv-result) "start"))
                  (drv-finish 3)))

(add-hook 'emacs-startup-hook
          (lambda ()
            (setq drv-file-buffer (find-buffer-visiting (plist-get drv-plan :file)))
            (unless drv-file-buffer (push "the file was not visited" drv-errors))
            (setq drv-timer (run-with-timer 0.1 0.05 #'drv-tick))))

;;; emacs_driver.el ends here
