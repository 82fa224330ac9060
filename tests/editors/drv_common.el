;;; drv_common.el --- what the eglot and lsp-mode test drivers share  -*- lexical-binding: t -*-
;;
;; Loaded by emacs_driver.el (eglot) and lsp_mode_driver.el (lsp-mode), which add what is
;; their client's own: how to tell the server attached, the buffer's version, the
;; diagnostics, the logs kept at the end, and the table `drv-step-functions' (the
;; steps below plus theirs). The plan in $AGENT_TEST_PLAN (JSON) runs from a timer, one
;; step at a time and only when the person could act, so the real command loop, timers
;; and prompts run in between; each prompt gets its scripted answer typed into
;; `unread-command-events' just before it reads.

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
(defvar drv-file-buffer nil)
(defvar drv-step-started nil)
(defvar drv-timer nil)
(defvar drv-step-functions nil "Step name -> function; set by the driver that loads this file.")
(defvar drv-finish-extra #'ignore "Called at the end, before the result is written: the driver's own fields and logs.")

(defun drv-ms () (round (* 1000 (- (float-time) drv-t0))))
(defun drv-put (key value) (puthash key value drv-result))
(defun drv-elapsed () (- (float-time) drv-step-started))
(defun drv-limit (s default) (/ (or (plist-get s :ms) default) 1000.0))

(defun drv-keys (keys)
  "Type KEYS (a `kbd' string, or a list of events) after whatever is pending."
  (setq unread-command-events
        (append unread-command-events
                (if (stringp keys) (listify-key-sequence (kbd keys)) keys))))

(defun drv-type-literally (text)
  "Events that insert TEXT in a minibuffer (SPC and ? would complete or help: quote them)."
  (cl-loop for c across text
           append (if (memq c '(?\s ??)) (list ?\C-q c) (list c))))

;; --- the person's answers, typed into the real prompts ---------------------------

(defun drv-before-completing-read (prompt collection &optional predicate _require-match initial &rest _)
  (unless (string-prefix-p "M-x" prompt) ; the person's own M-x, typed by a step
    (let* ((want (pop drv-picks))
           (items (all-completions "" collection predicate))
           (choice (and want (cl-find-if (lambda (s) (string-search want s)) items)))
           (initial (if (consp initial) (car initial) (or initial ""))))
      (push (list :kind "list" :title (substring-no-properties prompt) :items (vconcat items)
                  :want (or want :null) :choice (or choice :null) :t (drv-ms))
            drv-prompts)
      ;; the client may pre-fill the first action: rub it out, type the choice, RET.
      (drv-keys (if choice
                    (append (list ?\C-e) (make-list (length initial) ?\d)
                            (drv-type-literally choice) (list ?\r))
                  (list ?\C-g))))))
(advice-add 'completing-read :before #'drv-before-completing-read)

;; --- observing ------------------------------------------------------------------

(defun drv-messages ()
  (with-current-buffer (messages-buffer) (buffer-substring-no-properties (point-min) (point-max))))

(defun drv-idle-p ()
  "The person can act: no keys pending, no prompt open."
  (and (null unread-command-events) (zerop (minibuffer-depth))))

;; --- steps ----------------------------------------------------------------------
;; Each returns non-nil when done; a waiting step is called again on the next tick.

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
                      (append (drv-type-literally text) (list ?\r)))))
  t)

(defun drv-step-wait-message (s)
  (when (> (drv-elapsed) (drv-limit s 20000)) (error "no message containing %S" (plist-get s :text)))
  (string-search (plist-get s :text) (drv-messages)))

(defun drv-step-sleep (s) (> (drv-elapsed) (/ (plist-get s :ms) 1000.0)))

(defvar drv-responsive nil)
(defun drv-step-watch (s)
  "Record when the command loop is next idle (the person could type again)."
  (let ((name (or (plist-get s :name) "watch")))
    (setq drv-responsive (list :start (drv-ms)))
    (run-with-idle-timer 0.3 nil (lambda () (setq drv-responsive (plist-put drv-responsive :idle (drv-ms)))))
    (drv-put name drv-responsive)
    t))

(defun drv-step-watch-report (s)
  (drv-put (or (plist-get s :name) "watch") drv-responsive)
  t)

(defconst drv-common-steps
  '(("cursor" . drv-step-cursor) ("keys" . drv-step-keys) ("wait_message" . drv-step-wait-message)
    ("sleep" . drv-step-sleep) ("watch" . drv-step-watch) ("watch_report" . drv-step-watch-report)))

;; --- running --------------------------------------------------------------------

(defun drv-finish (&optional code)
  (when drv-timer (cancel-timer drv-timer))
  (condition-case err
      (progn
        (drv-put "finish_ms" (drv-ms))
        (drv-put "prompts" (vconcat (reverse drv-prompts)))
        (drv-put "steps" (vconcat (reverse drv-done-steps)))
        (drv-put "errors" (vconcat (reverse drv-errors)))
        (drv-put "messages" (drv-messages))
        (drv-put "emacs" emacs-version)
        (drv-put "unanswered" (list :pick (vconcat drv-picks)))
        (funcall drv-finish-extra)
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

;;; drv_common.el ends here
