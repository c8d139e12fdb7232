/** The one module of request and response types, derived from the BFF's OpenAPI document. */
import type { components, operations } from './schema.gen';

type Op = keyof operations;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's success response (200 or 201). */
export type ResponseOf<O extends Op> = operations[O]['responses'] extends infer R
  ? R extends { 200: infer S }
    ? JsonOf<S>
    : R extends { 201: infer S }
      ? JsonOf<S>
      : never
  : never;
/** The JSON request body of an operation. */
export type RequestOf<O extends Op> = operations[O] extends { requestBody?: infer B }
  ? JsonOf<NonNullable<B>>
  : never;
/** The query parameters of an operation. */
export type QueryOf<O extends Op> = NonNullable<operations[O]['parameters']['query']>;

type Schemas = components['schemas'];
// The records the screens show.
export type User = Schemas['UserOut'];
/** A user in GET /api/users: containers and a folder count, not every folder. */
export type UserSummary = Schemas['UserSummary'];
export type Role = User['role'];
export type StaffRole = Exclude<Role, 'admin'>;
export type TokenUser = Schemas['TokenUser'];
export type ContainerAssignment = Schemas['ContainerAssignmentOut'];
export type FolderAssignment = Schemas['FolderAssignmentOut'];
export type Assignment = Schemas['Assignment'];
export type AuditEntry = Schemas['AuditEntry'];
export type DashboardStats = Schemas['DashboardStats'];
export type StoredFile = Schemas['Blob'];
/** Where a file's content came from when the intake filed it (null: uploaded to its folder). */
export type FileSource = Schemas['FileSource'];
/** A file opened in the in-app viewer: its kind and the links of that viewer session. */
export type ViewerResponse = ResponseOf<'get_open_viewer'>;
/** A page's words with their boxes [x0, y0, x1, y1] in fractions of the page, origin top-left, in reading order. */
export type PageWords = ResponseOf<'get_viewer_words'>;
export type PageWord = Schemas['WordBox'];
/** The matches of a find in a file's text: word index spans [start, end) of a page's words. */
export type TextMatches = ResponseOf<'get_viewer_find'>;
export type TextMatch = Schemas['TextMatch'];
/** POST .../viewer/{version}/copied: text copied from a page (audited). */
export type TextCopied = RequestOf<'post_viewer_copied'>;
export type FileVersion = Schemas['VersionOut'];
export type TrashedFile = Schemas['TrashedBlob'];
export type SmartToken = Schemas['SmartTokenOut'];
export type TokenFolderLink = Schemas['TokenFolderLink'];
/** A folder's patient: name, date of birth (YYYY-MM-DD) and record number, each null when not known. */
export type PatientDetails = Schemas['PatientDetails'];
/** GET /api/patients/{c}/{f}: the patient, and who last changed them and when (null: no change on record). */
export type PatientRead = ResponseOf<'get_patient'>;

// The bodies and query parameters of each operation, in the order of the API's paths.
export type LoginRequest = RequestOf<'post_login'>;
export type LoginResponse = ResponseOf<'post_login'>;
export type MfaRequired = Schemas['MfaRequiredResponse'];
export type MfaMethod = MfaRequired['methods'][number];
export type MfaLoginRequest = RequestOf<'post_login_mfa'>;
export type MfaLoginResponse = ResponseOf<'post_login_mfa'>;
export type MfaStatus = ResponseOf<'get_mfa_status'>;
export type Passkey = Schemas['PasskeyOut'];
export type TotpSetup = ResponseOf<'post_start_totp'>;
export type RecoveryCodesResponse = ResponseOf<'post_confirm_totp'>;
export type ConfirmIdentity = RequestOf<'post_confirm_identity'>;
export type IdentityConfirmed = ResponseOf<'post_confirm_identity'>;
export type PasskeyCreated = ResponseOf<'post_register_passkey'>;
export type ValidateResponse = ResponseOf<'get_validate_token'>;
export type LogoutResponse = ResponseOf<'post_logout'>;
export type LogoutAllResponse = ResponseOf<'post_logout_all'>;
export type SsoConfig = ResponseOf<'get_sso_config'>;
export type SsoCompleteRequest = RequestOf<'post_sso_complete'>;
export type SsoUnlinkResponse = ResponseOf<'delete_sso_unlink'>;
export type SsoLinkRequest = RequestOf<'post_sso_link'>;
export type SsoLinkCodeRequest = RequestOf<'post_sso_link_code'>;
/** A user's single sign-on on the admin's user page: the subject linked, a pending "link at next sign-in", the subjects seen without a link. */
export type UserSso = ResponseOf<'get_sso_account'>;
export type SeenSubject = UserSso['seen'][number];
export type SsoBindRequest = RequestOf<'put_sso_bind'>;
export type SsoBindResponse = ResponseOf<'put_sso_bind'>;
export type SsoExpectResponse = ResponseOf<'put_sso_expect'>;
export type SsoCancelExpectedResponse = ResponseOf<'delete_sso_cancel_expected'>;
export type RegisterRequest = RequestOf<'post_register'>;
export type RegisterResponse = ResponseOf<'post_register'>;
export type UserSummariesResponse = ResponseOf<'get_list_users'>;
export type UserResponse = ResponseOf<'get_get_user'>;
export type UpdateUserRequest = RequestOf<'put_update_user'>;
export type DeleteUserResponse = ResponseOf<'delete_delete_user'>;
export type ResetSecondFactorResponse = ResponseOf<'delete_reset_second_factor'>;
export type DashboardResponse = ResponseOf<'get_dashboard'>;
export type ContainersResponse = ResponseOf<'get_list_containers'>;
export type FoldersResponse = ResponseOf<'get_list_folders'>;
export type ListQuery = QueryOf<'get_list_containers'>;
export type ContainerAssignedResponse = ResponseOf<'post_assign_container'>;
export type AssignFoldersResponse = ResponseOf<'post_assign_folders'>;
export type UserAssignmentsResponse = ResponseOf<'get_user_assignments'>;
export type MyAssignmentsResponse = ResponseOf<'get_my_assignments'>;
export type UnassignResponse = ResponseOf<'delete_unassign'>;
export type AuditQuery = QueryOf<'get_audit_logs'>;
export type AuditPage = ResponseOf<'get_audit_logs'>;
export type AccessReportQuery = QueryOf<'get_access_report'>;
export type AccessReportPage = ResponseOf<'get_access_report'>;
export type AuditStatus = ResponseOf<'get_audit_status'>;
export type CreateContainerResponse = ResponseOf<'post_create_container'>;
export type CreateFolderResponse = ResponseOf<'post_create_folder'>;
export type MyStatsResponse = ResponseOf<'get_my_assignment_stats'>;
export type MyFoldersResponse = ResponseOf<'get_my_folders'>;
export type FolderStats = Schemas['FolderStats'];
export type FileListResponse = ResponseOf<'get_list_files'>;
export type PatientUpdate = RequestOf<'put_update_patient'>;
export type PatientSaved = ResponseOf<'put_update_patient'>;
export type UploadResponse = ResponseOf<'post_upload'>;
export type DeleteFileResponse = ResponseOf<'delete_delete_file'>;
export type ViewLinkResponse = ResponseOf<'get_view_link'>;
export type VersionListResponse = ResponseOf<'get_list_versions'>;
export type RestoreVersionResponse = ResponseOf<'post_restore_version'>;
export type TrashListResponse = ResponseOf<'get_list_trash'>;
export type RestoreTrashedResponse = ResponseOf<'post_restore_trashed'>;
export type PurgeTrashedRequest = RequestOf<'delete_purge_trashed'>;
export type PurgeTrashedResponse = ResponseOf<'delete_purge_trashed'>;
export type TokenListResponse = ResponseOf<'get_unclaimed_tokens'>;
export type AssignedFoldersResponse = ResponseOf<'get_assigned_folders'>;
export type RegisterTokenRequest = RequestOf<'post_register_token'>;
export type RegisterTokenResponse = ResponseOf<'post_register_token'>;
export type AssignTokenRequest = RequestOf<'post_assign_token'>;
export type AssignTokenResponse = ResponseOf<'post_assign_token'>;
export type RevokeTokenRequest = RequestOf<'post_revoke_token'>;
export type TokenChangedResponse = ResponseOf<'post_revoke_token'>;
export type ReactivateTokenRequest = RequestOf<'post_reactivate_token'>;
export type DeleteTokenResponse = ResponseOf<'delete_delete_token'>;
export type EmergencyView = ResponseOf<'get_emergency_view'>;
export type SearchQueryParams = QueryOf<'get_search'>;
export type SearchResponse = ResponseOf<'get_search'>;
/** A search hit; `patient` (issue 50) is the folder's patient, null when nothing is known. */
export type SearchResult = Schemas['SearchResult'];
export type FileType = Schemas['FileType'];
export type UnassignType = QueryOf<'delete_unassign'>['type'];

// Malware scanning (issue 49): the scanner's state, the quarantine.
export type ScanStatus = ResponseOf<'get_scanning'>;
export type QuarantinedFile = Schemas['QuarantinedOut'];
export type QuarantinePage = ResponseOf<'get_list_quarantine'>;
export type DeleteQuarantinedResponse = ResponseOf<'delete_delete_quarantined'>;
/** POST /api/blobs/{c}/{f}/visit: the caller's visit before this one (null: the first). */
export type VisitResponse = ResponseOf<'post_visit'>;

// The intake (issue 51): documents from scanners, the mailbox and uploads on their way to a folder.
export type IntakeItem = Schemas['IntakeItemOut'];
export type IntakeItems = ResponseOf<'get_list_items'>;
export type IntakeStatusFilter = NonNullable<QueryOf<'get_list_items'>['status']>;
export type UploadedIntakeBatch = ResponseOf<'post_upload_batch'>;
export type FileIntakeRequest = RequestOf<'post_file_item'>;
export type FiledIntakeItem = ResponseOf<'post_file_item'>;
export type IntakeItemMessage = ResponseOf<'post_delete_item'>;
export type SplitIntakeRequest = RequestOf<'post_split_item'>;
export type SplitIntakeDone = ResponseOf<'post_split_item'>;
export type RotateIntakeRequest = RequestOf<'post_rotate_item'>;
