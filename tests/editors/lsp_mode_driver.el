;;; lsp_mode_driver.el --- drive a real interactive Emacs + lsp-mode like a person, for tests/editors  -*- lexical-binding: t -*-
;;
;; The lsp-mode counterpart of emacs_driver.el (which drives eglot). Emacs runs as
;; `emacs -nw FILE -l lsp_mode_driver.el' on a pseudo-terminal; its init file is a
;; person's: lsp-mode started from python-mode-hook, agent-lsp registered by
;; (require 'agent-lsp-lsp-mode) or by a plain `lsp-register-client', ruff beside it
;; or not. The plan in $AGENT_TEST_PLAN (JSON) runs from a timer, one step at a time
;; and only when the person could act, so the real command loop, timers and prompts run
;; in between. Each prompt gets its scripted answer typed just before it reads. At the
;; end the result (JSON) goes to the plan's result file and lsp-mode's own record of
;; the traffic (`lsp-log-io') next to it, one file per server. What it shares with
;; emacs_driver.el (the plan, the timer, typing, the common steps, the end) is in
;; drv_common.el beside it.

(load (expand-file-name "drv_common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

;; --- the person's answers, typed into the real prompts ---------------------------

(defun drv-before-y-or-n-p (prompt &rest _)
  ;; Never expected from agent-lsp under lsp-mode: record it and say no.
  (push (list :kind "confirm" :title (substring-no-properties (format "%s" prompt)) :t (drv-ms)) drv-prompts)
  (drv-keys (list ?n)))
(advice-add 'y-or-n-p :before #'drv-before-y-or-n-p)

(defun drv-before-yes-or-no-p (prompt &rest _)
  (push (list :kind "yes-or-no" :title (substring-no-properties (format "%s" prompt)) :t (drv-ms)) drv-prompts)
  (drv-keys (append (drv-type-literally "no") (list ?\r))))
(advice-add 'yes-or-no-p :before #'drv-before-yes-or-no-p)

(defun drv-before-supersession (&rest args)
  (push (list :kind "supersession" :title (format "%S" args) :t (drv-ms)) drv-prompts))
(advice-add 'ask-user-about-supersession-threat :before #'drv-before-supersession)

;; --- observing ------------------------------------------------------------------

(defun drv-workspaces ()
  (and (buffer-live-p drv-file-buffer)
       (with-current-buffer drv-file-buffer (bound-and-true-p lsp--buffer-workspaces))))

(defun drv-server-name (ws) (symbol-name (lsp--client-server-id (lsp--workspace-client ws))))

(defun drv-workspace (name)
  (cl-find-if (lambda (ws) (equal (drv-server-name ws) name)) (drv-workspaces)))

(defun drv-buffer-state ()
  (with-current-buffer drv-file-buffer
    (list :text (buffer-substring-no-properties (point-min) (point-max))
          :modified (if (buffer-modified-p) t :false)
          :modtime_ok (if (verify-visited-file-modtime) t :false)
          :version (if (boundp 'lsp--cur-version) lsp--cur-version -1))))

(defun drv-diagnostics (name)
  "The diagnostics server NAME published for the file: (:message :source :line), 1-based lines."
  (let ((ws (drv-workspace name)))
    (when ws
      (mapcar (lambda (d)
                (list :message (lsp:diagnostic-message d)
                      :source (or (lsp:diagnostic-source? d) :null)
                      :line (1+ (lsp:position-line (lsp:range-start (lsp:diagnostic-range d))))))
              (gethash (lsp--fix-path-casing (buffer-file-name drv-file-buffer))
                       (lsp--workspace-diagnostics ws))))))

;; --- steps ----------------------------------------------------------------------
;; Each returns non-nil when done; a waiting step is called again on the next tick.

(defun drv-step-attach (s)
  "Wait until every server in :servers is initialized for the file."
  (when (> (drv-elapsed) (drv-limit s 20000)) (error "not attached: %S" (mapcar #'drv-server-name (drv-workspaces))))
  (cl-every (lambda (name)
              (let ((ws (drv-workspace name)))
                (and ws (eq (lsp--workspace-status ws) 'initialized))))
            (plist-get s :servers)))

(defun drv-step-wait-diagnostics (s)
  "Wait until server :server's diagnostics hold one containing :text (or, with :absent, none)."
  (when (> (drv-elapsed) (drv-limit s 15000))
    (error "%s %s diagnostic containing %S: %S" (if (plist-get s :absent) "still a" "no")
           (plist-get s :server) (plist-get s :text) (drv-diagnostics (plist-get s :server))))
  (let* ((items (drv-diagnostics (plist-get s :server)))
         (hit (cl-some (lambda (d) (string-search (plist-get s :text) (plist-get d :message))) items)))
    (when (if (plist-get s :absent) (not hit) hit)
      (drv-put (or (plist-get s :name) "diagnostics")
               (list :items (vconcat items) :t (drv-ms)))
      t)))

(defun drv-step-wait-progress (s)
  "Wait until server :server has a progress (a running task) in lsp-mode's mode line."
  (when (> (drv-elapsed) (drv-limit s 15000)) (error "no progress from %s" (plist-get s :server)))
  (let ((ws (drv-workspace (plist-get s :server))))
    (and ws (> (hash-table-count (lsp--workspace-work-done-tokens ws)) 0))))

(defun drv-step-snapshot (s)
  (drv-put (or (plist-get s :name) "buffer") (append (drv-buffer-state) (list :t (drv-ms))))
  t)

(setq drv-step-functions
      (append drv-common-steps
              '(("attach" . drv-step-attach) ("wait_diagnostics" . drv-step-wait-diagnostics)
                ("snapshot" . drv-step-snapshot) ("wait_progress" . drv-step-wait-progress))))

;; --- the end: the buffer, the servers, lsp-mode's record of the traffic ----------

(defun drv-save-io-logs ()
  "lsp-mode's record of each server's traffic, as the-server-id.io.log next to the result."
  (let ((dir (file-name-directory (plist-get drv-plan :result))))
    (dolist (ws (drv-workspaces))
      (let ((buf (get-buffer (format "*lsp-log: %s:%s*" (drv-server-name ws)
                                     (process-id (lsp--workspace-cmd-proc ws))))))
        (when buf
          (with-current-buffer buf
            (write-region nil nil (expand-file-name (concat (drv-server-name ws) ".io.log") dir) nil 'quiet)))))))

(setq drv-finish-extra
      (lambda ()
        (drv-put "servers" (vconcat (mapcar #'drv-server-name (drv-workspaces))))
        (when (buffer-live-p drv-file-buffer) (drv-put "final" (drv-buffer-state)))
        (ignore-errors (drv-save-io-logs))))

;;; lsp_mode_driver.el ends here
