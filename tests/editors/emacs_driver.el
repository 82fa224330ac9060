;;; emacs_driver.el --- drive a real interactive Emacs + eglot like a person, for tests/editors  -*- lexical-binding: t -*-
;;
;; Emacs runs as `emacs -nw FILE -l emacs_driver.el' on a pseudo-terminal, with the
;; emacs-client/ package set up in its init file. The plan in $AGENT_TEST_PLAN
;; (JSON) runs from a timer, one step at a time, so the real command loop runs in
;; between: keys are pushed as input events (`C-c a a', `M-x agent-lsp-task RET ...',
;; `C-x C-s'), idle timers fire (eglot sends didChange from one), prompts are the real
;; ones. Each prompt gets its scripted answer typed into `unread-command-events' just
;; before it reads, and is recorded. The result goes to the plan's result file as JSON.

;; What it shares with lsp_mode_driver.el (the plan, the timer, typing, the common steps,
;; the end) is in drv_common.el beside it.

(load (expand-file-name "drv_common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defvar drv-confirms (plist-get drv-plan :confirm))

(defun drv-record (kind prompt want)
  (push (list :kind kind :title (substring-no-properties (format "%s" prompt))
              :want (or want :null) :t (drv-ms))
        drv-prompts))

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

;; --- observing ------------------------------------------------------------------

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

;; --- linters' diagnostics, as any Flymake backend reports them -------------------

(defun drv-report-items (report items)
  "Hand Flymake's REPORT the ITEMS (:lnum :col :end_col :severity :message)."
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
                   items)))

(defvar-local drv-lint-items nil)
(defun drv-lint-backend (report &rest _)
  (drv-report-items report drv-lint-items))

;; A linter that checks again after every change (Flymake runs it after an idle pause):
;; the items of the first rule whose :contains the buffer holds, else :default.
(defvar-local drv-lint-rules nil)
(defun drv-rules-backend (report &rest _)
  (let* ((text (buffer-substring-no-properties (point-min) (point-max)))
         (rule (cl-find-if (lambda (r) (string-search (plist-get r :contains) text))
                           (plist-get drv-lint-rules :rules))))
    (drv-report-items report (if rule (plist-get rule :items) (plist-get drv-lint-rules :default)))))

;; --- steps ----------------------------------------------------------------------
;; Each returns non-nil when done; a waiting step is called again on the next tick.

(defun drv-step-attach (s)
  (when (> (drv-elapsed) (drv-limit s 15000)) (error "agent-lsp did not attach"))
  (let ((server (drv-server)))
    ;; :any: a stock eglot entry (plain eglot-lsp-server), not the package's class
    (and server (or (plist-get s :any) (eq (eieio-object-class-name server) 'agent-lsp-server)))))

(defun drv-step-diagnostics (s)
  (with-current-buffer drv-file-buffer
    (unless drv-lint-items
      (setq drv-lint-items (plist-get s :items))
      (add-hook 'flymake-diagnostic-functions #'drv-lint-backend nil t)
      (flymake-start))
    (when (> (drv-elapsed) 5) (error "the linter's diagnostics did not show"))
    (cl-some (lambda (d) (eq (flymake-diagnostic-backend d) 'drv-lint-backend))
             (flymake-diagnostics))))

;; What Flymake shows in the buffer, from every backend: (:text :backend :line).
(defun drv-flymake-list ()
  (with-current-buffer drv-file-buffer
    (mapcar (lambda (d)
              (list :text (substring-no-properties (flymake-diagnostic-text d))
                    :backend (format "%s" (flymake-diagnostic-backend d))
                    :line (line-number-at-pos (flymake-diagnostic-beg d))))
            (flymake-diagnostics))))

(defun drv-step-wait-diagnostics (s)
  "Wait until a diagnostic whose text holds :text shows (or, with :absent, is gone); record them as :name."
  (when (> (drv-elapsed) (drv-limit s 15000))
    (error "%s diagnostic containing %S" (if (plist-get s :absent) "still a" "no") (plist-get s :text)))
  (let* ((all (drv-flymake-list))
         (hit (cl-some (lambda (d) (string-search (plist-get s :text) (plist-get d :text))) all)))
    (when (if (plist-get s :absent) (not hit) hit)
      (drv-put (or (plist-get s :name) "diagnostics")
               (list :items (vconcat all) :t (drv-ms)
                     :waited (round (* 1000 (drv-elapsed)))))
      t)))

(defun drv-step-snapshot (s)
  (let ((name (or (plist-get s :name) "buffer")))
    (drv-put name (drv-buffer-state))
    (drv-put (concat name "_windows") (length (window-list nil 'no-minibuf))))
  t)

(defun drv-step-lint-rules (s)
  (with-current-buffer drv-file-buffer
    (unless drv-lint-rules
      (setq drv-lint-rules s)
      (add-hook 'flymake-diagnostic-functions #'drv-rules-backend nil t)
      (flymake-start))
    (when (> (drv-elapsed) 5) (error "the rules linter's diagnostics did not show"))
    (cl-some (lambda (d) (eq (flymake-diagnostic-backend d) 'drv-rules-backend))
             (flymake-diagnostics))))

(setq drv-step-functions
      (append drv-common-steps
              '(("attach" . drv-step-attach) ("diagnostics" . drv-step-diagnostics)
                ("snapshot" . drv-step-snapshot) ("lint_rules" . drv-step-lint-rules)
                ("wait_diagnostics" . drv-step-wait-diagnostics))))

;; --- the end: the buffer, the answers never asked for, eglot's own log ------------

(setq drv-finish-extra
      (lambda ()
        (drv-put "unanswered" (list :pick (vconcat drv-picks) :confirm (vconcat drv-confirms)))
        (when (buffer-live-p drv-file-buffer) (drv-put "final" (drv-buffer-state)))
        (let ((server (ignore-errors (drv-server))))
          (when server
            (with-current-buffer (jsonrpc-events-buffer server)
              (write-region nil nil (concat (file-name-directory (plist-get drv-plan :result)) "eglot-events.log")
                            nil 'quiet))))))

;;; emacs_driver.el ends here
